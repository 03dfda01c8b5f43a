/// Readable, prefixed random ids (`pi_…`, `att_…`, `re_…`, `co_…`, `dev_…`), Stripe style: 24 base-62
/// characters (about 143 bits) after the prefix, so ids are unguessable and never collide in
/// practice. The random source is injected: the system generator in the program, a seeded one
/// in tests.
public enum PaymentIDs {
    /// What the id names; the raw value is its prefix.
    public enum Kind: String, Sendable, CaseIterable {
        case intent = "pi"
        case attempt = "att"
        case refund = "re"
        case checkout = "co"
        /// A push device registration.
        case device = "dev"
    }

    /// Characters after the prefix.
    public static let randomLength = 24
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A new id of `kind`, drawn from `random`.
    public static func make(_ kind: Kind, using random: inout some RandomNumberGenerator) -> String {
        while true {
            var characters: [UInt8] = []
            characters.reserveCapacity(randomLength)
            for _ in 0..<randomLength {
                // `random(in:)` draws without modulo bias.
                characters.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
            }
            let body = String(decoding: characters, as: UTF8.self)
            // An id is shown and stored everywhere, so it may not hold what looks like a card
            // number (`SensitiveDigits`); such a draw is vanishingly rare, and simply drawn again.
            if !SensitiveDigits.containsCardNumber(body) { return "\(kind.rawValue)_\(body)" }
        }
    }

    /// True when `text` has the shape of an id of `kind` (prefix, underscore, 24 base-62 characters).
    public static func isWellFormed(_ text: String, kind: Kind) -> Bool {
        let prefix = kind.rawValue + "_"
        guard text.hasPrefix(prefix) else { return false }
        let body = text.utf8.dropFirst(prefix.utf8.count)
        return body.count == randomLength && body.allSatisfy { alphabet.contains($0) }
    }
}

/// A small, fast, seedable generator (SplitMix64) for tests and reproducible demos. Not for
/// anything secret: the program uses `SystemRandomNumberGenerator`.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
