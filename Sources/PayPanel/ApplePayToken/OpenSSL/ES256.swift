internal import COpenSSL

/// ECDSA on P-256 with SHA-256 (JOSE "ES256"), the signature of APNs provider tokens.
///
/// OpenSSL signs and verifies in DER (`SEQUENCE { INTEGER r, INTEGER s }`); JOSE wants the
/// two integers as fixed 32-byte big-endian halves, `R ‖ S` (RFC 7518 §3.4). Both directions
/// are converted here, with every length checked: a signature is input too when verifying.
package enum ES256 {
    /// Bytes of a JOSE signature.
    package static let signatureByteCount = 2 * P256.byteCount

    /// Signs `message` (SHA-256 inside); returns the 64-byte `R ‖ S`.
    package static func sign(_ message: [UInt8], with privateKey: ECPrivateKey) throws(OpenSSLError) -> [UInt8] {
        let operation = "signing with ES256"
        let digest = try DigestContext(operation)
        let der = try digest.withPointer { (context) throws(OpenSSLError) -> [UInt8] in
            try privateKey.key.withPointer { EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, $0, nil) }.check(operation)
            var length = 0
            try EVP_DigestSign(context, nil, &length, message, message.count).check(operation)
            var signature = [UInt8](repeating: 0, count: length)
            try EVP_DigestSign(context, &signature, &length, message, message.count).check(operation)
            return Array(signature.prefix(length))
        }
        guard let jose = joseSignature(fromDER: der) else {
            throw OpenSSLError(operation: operation, reason: "OpenSSL returned a signature that is not a DER ECDSA-Sig-Value")
        }
        return jose
    }

    /// True when `signature` (64 bytes, `R ‖ S`) is `publicKey`'s signature of `message`.
    package static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey: ECPublicKey) -> Bool {
        guard let der = derSignature(fromJOSE: signature), let digest = try? DigestContext("verifying ES256") else { return false }
        let result = digest.withPointer { context -> Int32 in
            guard publicKey.key.withPointer({ EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, $0, nil) }) == 1 else { return 0 }
            return EVP_DigestVerify(context, der, der.count, message, message.count)
        }
        OpenSSLError.drainQueue()
        return result == 1
    }

    /// `R ‖ S` from a DER ECDSA-Sig-Value; nil when it is not one (or an integer is too wide).
    static func joseSignature(fromDER der: [UInt8]) -> [UInt8]? {
        var reader = DERReader(der)
        guard let sequence = reader.read(tag: 0x30), reader.isAtEnd else { return nil }
        var inner = DERReader(sequence)
        guard let r = inner.read(tag: 0x02), let s = inner.read(tag: 0x02), inner.isAtEnd,
            let rBytes = fixedWidth(r), let sBytes = fixedWidth(s)
        else { return nil }
        return rBytes + sBytes
    }

    /// A DER ECDSA-Sig-Value from `R ‖ S`; nil unless exactly 64 bytes.
    static func derSignature(fromJOSE signature: [UInt8]) -> [UInt8]? {
        guard signature.count == signatureByteCount else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }  // keep it positive
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(signature[0..<P256.byteCount]) + integer(signature[P256.byteCount...])
        return [0x30, UInt8(body.count)] + body  // at most 70 bytes: short-form length
    }

    /// A DER INTEGER's content as exactly 32 big-endian bytes.
    private static func fixedWidth(_ integer: [UInt8]) -> [UInt8]? {
        let trimmed = integer.drop { $0 == 0 }
        guard trimmed.count <= P256.byteCount else { return nil }
        return [UInt8](repeating: 0, count: P256.byteCount - trimmed.count) + trimmed
    }
}

/// Reads DER TLVs with short or one/two-byte long-form lengths, checking every bound.
private struct DERReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    /// The content of the next element when its tag is `tag`.
    mutating func read(tag: UInt8) -> [UInt8]? {
        guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
        var length = Int(bytes[offset + 1])
        var start = offset + 2
        if length & 0x80 != 0 {
            let lengthBytes = length & 0x7F
            guard (1...2).contains(lengthBytes), start + lengthBytes <= bytes.count else { return nil }
            length = bytes[start..<start + lengthBytes].reduce(0) { $0 << 8 | Int($1) }
            start += lengthBytes
        }
        guard start + length <= bytes.count else { return nil }
        offset = start + length
        return Array(bytes[start..<start + length])
    }
}

/// Owns one `EVP_MD_CTX` (a digest-sign or digest-verify operation). Not shared between threads.
final class DigestContext {
    private let pointer: OpaquePointer

    init(_ operation: @autoclosure () -> String) throws(OpenSSLError) {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.drain(operation()) }
        pointer = context
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    /// Runs `body` with the `EVP_MD_CTX`, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}
