import MockProcessor

/// Stripe's test payment method ids and the test card numbers they stand for here, so code
/// written against Stripe's test mode runs unchanged. Read from `StripeTestCards`, the one table
/// of Stripe's test cards; each number's behaviour is the trigger table's.
enum TestPaymentMethods {
    /// Every `pm_card_…` id with its number, in table order.
    static let cards: [(id: String, number: String)] = StripeTestCards.all.flatMap { card in card.paymentMethods.map { ($0, card.number) } }

    static func number(for id: String) -> String? {
        StripeTestCards.card(paymentMethod: id)?.number
    }
}
