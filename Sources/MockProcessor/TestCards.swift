import PayPanel

/// Stripe test card numbers and the triggers they stand for. Any other valid number is approved.
public enum TestCards {
    /// In table order. The numbers are public test numbers, not customer data.
    public static let numbers: [(digits: String, trigger: MockTrigger)] = [
        ("4242424242424242", .approve),
        ("5555555555554444", .approve),
        ("378282246310005", .approve),
        ("6011111111111117", .approve),
        ("4000000000000002", .genericDecline),
        ("4000000000009995", .insufficientFunds),
        ("4000000000009987", .lostCard),
        ("4000000000009979", .stolenCard),
        ("4000000000000069", .expiredCard),
        ("4000000000000119", .processingError),
        ("4000002760003184", .challenge),
        ("4000008260003178", .challengeThenInsufficientFunds),
        ("4000008400001629", .challengeThenGenericDecline),
    ]

    /// The trigger of a test card, or nil for any other number.
    public static func trigger(for card: CardNumber) -> MockTrigger? {
        numbers.first { $0.digits == card.digits }?.trigger
    }

    /// The test cards that choose `trigger`.
    public static func numbers(for trigger: MockTrigger) -> [String] {
        numbers.filter { $0.trigger == trigger }.map(\.digits)
    }
}
