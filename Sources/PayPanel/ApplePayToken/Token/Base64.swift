import Foundation

/// Standard base64 (RFC 4648 §4, with padding), the encoding of every binary field of an Apple
/// Pay token and of PEM bodies.
enum Base64 {
    /// Decodes strict base64; nil for any character outside the alphabet, wrong padding or a
    /// length that is not a multiple of four.
    static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { Array($0) }
    }

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }
}
