import Foundation

/// Standard base64 (RFC 4648 §4, with padding), the encoding of every binary field of an Apple
/// Pay token and of PEM bodies.
///
/// Decoding is hand-written rather than `Data(base64Encoded:)` because it sits on every
/// token's path (a token carries 4 kB of base64): decoding straight from the string's UTF-8
/// into the result saves two copies and a third of the parse time.
package enum Base64 {
    /// Decodes strict base64: nil for a character outside the alphabet, a length that is not a
    /// multiple of four, misplaced padding, or non-zero bits in the padding (RFC 4648 §3.5),
    /// so every byte string has exactly one accepted spelling.
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count % 4 == 0 else { return nil }
        guard input.count > 0 else { return [] }
        let padding = input[input.count - 1] != UInt8(ascii: "=") ? 0 : input[input.count - 2] != UInt8(ascii: "=") ? 1 : 2
        let outputCount = input.count / 4 * 3 - padding
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            decodingTable.withUnsafeBufferPointer { table in
                var out = 0
                var index = 0
                let fullQuads = input.count / 4 - (padding > 0 ? 1 : 0)
                for _ in 0..<fullQuads {
                    let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else { valid = false; return }
                    buffer[out] = a << 2 | b >> 4
                    buffer[out + 1] = b << 4 | c >> 2
                    buffer[out + 2] = c << 6 | d
                    out += 3
                    index += 4
                }
                if padding > 0 {
                    let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                    let c = padding == 1 ? table[Int(input[index + 2])] : 0
                    // The bits after the last whole byte must be zero.
                    let leftover = padding == 1 ? c & 0x03 : b & 0x0F
                    guard (a | b | c) & 0xC0 == 0, leftover == 0 else { valid = false; return }
                    buffer[out] = a << 2 | b >> 4
                    if padding == 1 { buffer[out + 1] = b << 4 | c >> 2 }
                }
            }
            initialized = valid ? outputCount : 0
        }
        return valid ? output : nil
    }

    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Value of each byte in the alphabet, 0xFF for bytes outside it ('=' included: padding is
    /// only accepted where `decode` expects it).
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()
}
