/// Stripe's test payment method ids and the test card numbers they stand for here, so code
/// written against Stripe's test mode runs unchanged. Each number's behaviour is the trigger
/// table's (`paypanel processor triggers`).
enum TestPaymentMethods {
    static let cards: [(id: String, number: String)] = [
        ("pm_card_visa", "4242424242424242"),
        ("pm_card_mastercard", "5555555555554444"),
        ("pm_card_amex", "378282246310005"),
        ("pm_card_discover", "6011111111111117"),
        ("pm_card_chargeDeclined", "4000000000000002"),
        ("pm_card_chargeDeclinedInsufficientFunds", "4000000000009995"),
        ("pm_card_chargeDeclinedLostCard", "4000000000009987"),
        ("pm_card_chargeDeclinedStolenCard", "4000000000009979"),
        ("pm_card_chargeDeclinedExpiredCard", "4000000000000069"),
        ("pm_card_chargeDeclinedProcessingError", "4000000000000119"),
        ("pm_card_authenticationRequired", "4000002760003184"),
        ("pm_card_threeDSecure2Required", "4000002760003184"),
    ]

    static func number(for id: String) -> String? {
        cards.first { $0.id == id }?.number
    }
}
