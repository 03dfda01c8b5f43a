/// The event types PayPanel publishes: one per outbox topic of a payment or refund
/// (`OutboxTopic`, Stripe's names where Stripe has one) and the checkout's three endings.
package enum EventTypes {
    package static let checkoutTopics = ["checkout.paid", "checkout.expired", "checkout.canceled"]

    /// Every type, in a stable order.
    package static var all: [String] { OutboxTopic.allCases.map(\.rawValue) + checkoutTopics }

    /// True for a type an endpoint may subscribe to (or `*`).
    package static func isSubscribable(_ type: String) -> Bool {
        type == "*" || all.contains(type)
    }
}
