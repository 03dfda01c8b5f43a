import PayPanel
import Testing

/// The one rule for card numbers in text (`SensitiveDigits`): digits that pass the Luhn check,
/// 13 to 19 of them after any leading zeros, contiguous or in groups of 3 to 6 joined by one
/// kind of separator. What it
/// finds is refused in free text and redacted elsewhere; nothing else is touched.
@Suite struct SensitiveDigitsTests {
    /// Ordinary values with long digit runs: none is a card number, none is changed.
    static let ordinary = [
        "order-1234567890123",  // 13 digits, fails the Luhn check
        "3f2a9c1e-8b7d-4e2f-a1b2-123456789012",  // a UUID whose last group is all digits
        "12345678-1234-1234-1234-123456789012",  // a UUID of digits only
        "1732000000123456780",  // a nanosecond timestamp (19 digits) that fails the Luhn check
        "ts 1732000000123456780 ns",
        "99999999999999999999",  // 20 digits: too long to be a card number
        "4242424242424242999",  // 19 digits, fails the Luhn check
        "invoice 2024-01-15 555-123-4567",  // a date and a phone number
        "+44 20 7946 0958",
        "ch_1234567890123",  // a processor id with 13 digits
        "pi_3MtwBwLkdIwHu7ix28a3tqPa",
        "amount 123456789012",  // 12 digits
        // Runs that pass the Luhn check only because zeros do not count in it: no card number
        // starts with 0, and padding is not a card number.
        "00000000000000000",  // seventeen zeros (what a property-based tester sent as a note)
        "0000 0000 0000 0000",
        "order 0000001234567897",  // a zero-padded 10-digit reference
    ]

    /// Card numbers as people write them (Stripe's test cards; each passes the Luhn check).
    static let cards = [
        "4242424242424242", "pay 4242 4242 4242 4242 now", "4242-4242-4242-4242", "amex 3782 822463 10005",
        "3782-822463-10005", "ref 2024 4242 4242 4242 4242", "order-4242424242424242", "x4000000000009995y",
        "6011111111111117", "5555555555554444", "4242424242424242 and 5555555555554444",
        // Padded to a fixed width with zeros, as some card systems store it: still the card.
        "0004242424242424242", "acct 00004242424242424242",
        // …and in groups: 21 digits, 16 after the zeros.
        "000004 2424 2424 2424 242",
    ]

    @Test(arguments: ordinary)
    func ordinaryValuesAreNotCardNumbers(_ text: String) throws {
        #expect(!SensitiveDigits.containsCardNumber(text))
        #expect(SensitiveDigits.redacted(text) == text)
        try SensitiveDigits.check(text, field: "order_reference")
    }

    @Test(arguments: cards)
    func cardNumbersAreFoundRedactedAndRefused(_ text: String) {
        #expect(SensitiveDigits.containsCardNumber(text))
        let redacted = SensitiveDigits.redacted(text)
        #expect(redacted.contains(SensitiveDigits.redaction) && !SensitiveDigits.containsCardNumber(redacted), "\(redacted)")
        let error = #expect(throws: CardNumberInTextError.self) { try SensitiveDigits.check(text, field: "metadata[note]") }
        #expect(error?.field == "metadata[note]" && error?.code == "card_number_in_text")
        #expect(error?.message.contains("metadata[note]") == true && error?.message.contains("4242") == false)
    }

    /// The rule's one cost, written down: a bare run of 13 to 19 digits that happens to pass the
    /// Luhn check (1 in 10 of them) cannot be told from a card number, so free text refuses it.
    /// Idempotency keys are never refused for it (`IdempotencyStore.validate`).
    @Test func aBareRunThatPassesTheLuhnCheckIsTreatedAsACardNumber() {
        #expect(SensitiveDigits.containsCardNumber("1732000000123456789"))
        #expect(!SensitiveDigits.containsCardNumber("1732000000123456780"))
    }

    @Test func redactionReplacesTheCardNumberOnlyAndKeepsTheRest() {
        #expect(SensitiveDigits.redacted("pay 4242 4242 4242 4242 now") == "pay [redacted] now")
        #expect(SensitiveDigits.redacted("ref 2024 4242 4242 4242 4242.") == "ref 2024 [redacted].")
        #expect(SensitiveDigits.redacted("4242424242424242 and 5555555555554444") == "[redacted] and [redacted]")
        #expect(SensitiveDigits.redacted("order-1234567890123 for 4242-4242-4242-4242") == "order-1234567890123 for [redacted]")
        // Grouping is one separator kind at a time: mixed separators are not read as one number.
        #expect(!SensitiveDigits.containsCardNumber("4242 4242-4242 4242"))
        // Non-ASCII digits are not read as card digits (no card network prints them).
        #expect(!SensitiveDigits.containsCardNumber("٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢"))
    }

    /// Zeros padding a grouped card number are part of it (redacted with it), however many
    /// groups of them come first; a long run of zero groups alone is no card number.
    @Test func aLongRunOfZeroGroupsPadsTheCardAfterIt() {
        let zeros = Array(repeating: "000", count: 2000).joined(separator: "-")
        #expect(!SensitiveDigits.containsCardNumber(zeros))
        #expect(SensitiveDigits.redacted("id " + zeros + "-4242-4242-4242-4242 end") == "id [redacted] end")
        #expect(SensitiveDigits.redacted("0000 4242 4242 4242 4242") == "[redacted]")
    }
}
