import PayPanel

/// Stripe test card numbers and the triggers they stand for (on session), read from
/// `StripeTestCards`, the one table of Stripe's test cards. Any other valid number is approved.
public enum TestCards {
    /// In table order. The numbers are public test numbers, not customer data.
    public static let numbers: [(digits: String, trigger: MockTrigger)] = StripeTestCards.all.map { ($0.number, $0.onSession) }

    /// The trigger of a test card, or nil for any other number.
    public static func trigger(for card: CardNumber) -> MockTrigger? {
        StripeTestCards.card(number: card.digits)?.onSession
    }

    /// The test cards that choose `trigger`.
    public static func numbers(for trigger: MockTrigger) -> [String] {
        numbers.filter { $0.trigger == trigger }.map(\.digits)
    }
}
