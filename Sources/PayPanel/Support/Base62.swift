/// Ids and secrets as base-62 text (digits, upper- and lower-case letters): the project's one
/// way to turn randomness, or a seed to derive from, into such text.
///
/// Every character is equally likely. Bytes are read only below 248 (4 × 62) and the rest
/// skipped, because `byte % 62` over all 256 values would make the first eight characters of
/// the alphabet one and a quarter times as likely as the others, which takes bits from a secret
/// and makes ids less uniform than they claim.
package enum Base62 {
    package static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `length` characters drawn from `random` (the system generator for real ids, a seeded one
    /// in tests: the same seed gives the same ids).
    package static func random(length: Int, using random: inout some RandomNumberGenerator) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        for _ in 0..<length {
            // `random(in:)` draws without modulo bias.
            characters.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// `length` characters from a source of random bytes (OpenSSL's, for secrets).
    package static func random(length: Int, from source: any RandomByteSource) -> String {
        var buffer: [UInt8] = []
        var next = 0
        return text(length: length) {
            if next == buffer.count {
                buffer = source.bytes(max(length * 2, 16))
                next = 0
            }
            defer { next += 1 }
            return buffer[next]
        }
    }

    /// `length` characters derived from `seed`: the same seed always gives the same text, and
    /// different seeds text as uniform as random. The bytes are SHA-256 of the seed and a block
    /// number, as many blocks as the skipped bytes need.
    package static func derived(from seed: String, length: Int) -> String {
        var block = 0
        var buffer: [UInt8] = []
        var next = 0
        return text(length: length) {
            if next == buffer.count {
                buffer = SHA256.hash(seed + "\u{0}" + String(block))
                block += 1
                next = 0
            }
            defer { next += 1 }
            return buffer[next]
        }
    }

    /// Reads bytes until `length` characters are made, skipping those of 248 and above.
    private static func text(length: Int, nextByte: () -> UInt8) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        while characters.count < length {
            let byte = nextByte()
            if byte < 248 { characters.append(alphabet[Int(byte % 62)]) }
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
