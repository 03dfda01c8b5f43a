internal import COpenSSL

/// SHA-256 through OpenSSL's EVP interface (with the digest fetched once: see
/// `FetchedAlgorithms`).
package enum SHA256 {
    package static let byteCount = 32

    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        let input = Array(bytes)
        let ok = input.withUnsafeBytes { inputBuffer in
            digest.withUnsafeMutableBytes { digestBuffer in
                FetchedAlgorithms.sha256.withPointer { sha256 in
                    EVP_Digest(inputBuffer.baseAddress, inputBuffer.count,
                               digestBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, sha256, nil)
                }
            }
        }
        // EVP_Digest with a built-in digest only fails on memory exhaustion.
        precondition(ok == 1, "EVP_Digest(SHA-256) failed")
        return digest
    }

    package static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }
}

extension Collection<UInt8> {
    /// Lower-case hexadecimal.
    package var hexString: String {
        let digits: [Character] = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}

extension Array where Element == UInt8 {
    /// Decodes hexadecimal (either case); nil for odd length or a non-hex character.
    package init?(hexString: some StringProtocol) {
        let utf8 = Array(hexString.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x61...0x66: byte - 0x61 + 10
            case 0x41...0x46: byte - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}
