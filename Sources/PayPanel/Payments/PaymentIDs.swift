/// Readable, prefixed random ids (`pi_…`, `att_…`, `re_…`, `co_…`, `dev_…`), Stripe style: 24 base-62
/// characters (about 143 bits) after the prefix, so ids are unguessable and never collide in
/// practice. The random source is injected: the system generator in the program, a seeded one
/// in tests.
package enum PaymentIDs {
    /// What the id names; the raw value is its prefix.
    package enum Kind: String, Sendable, CaseIterable {
        case intent = "pi"
        case attempt = "att"
        case refund = "re"
        case checkout = "co"
        /// A push device registration.
        case device = "dev"
    }

    /// Characters after the prefix.
    package static let randomLength = 24

    /// A new id of `kind`, drawn from `random`.
    package static func make(_ kind: Kind, using random: inout some RandomNumberGenerator) -> String {
        while true {
            let body = Base62.random(length: randomLength, using: &random)
            // An id is shown and stored everywhere, so it may not hold what looks like a card
            // number (`SensitiveDigits`); such a draw is vanishingly rare, and simply drawn again.
            if !SensitiveDigits.containsCardNumber(body) { return "\(kind.rawValue)_\(body)" }
        }
    }

    /// True when `text` has the shape of an id of `kind` (prefix, underscore, 24 base-62 characters).
    package static func isWellFormed(_ text: String, kind: Kind) -> Bool {
        let prefix = kind.rawValue + "_"
        guard text.hasPrefix(prefix) else { return false }
        let body = text.utf8.dropFirst(prefix.utf8.count)
        return body.count == randomLength && body.allSatisfy { Base62.alphabet.contains($0) }
    }
}
