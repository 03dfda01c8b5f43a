import Foundation
import PayPanel

/// The `data.object` of an event, in the API's shape: the payment intent (or the refund, for
/// `refund.*`) as the outbox message recorded it when the change was made, or the checkout as
/// its trigger recorded it. Rendered once, when the event is published.
public enum EventObjects {
    package static func render(_ message: UnpublishedMessage) -> JSONValue {
        switch message {
        case .checkout(let message):
            return message.checkout.apiJSON()
        case .payment(let message):
            guard let payload = try? OutboxPayload(storedText: message.payload) else { return unreadable(message) }
            if message.topic.hasPrefix("refund."), let refund = payload.refund {
                return APIObjects.refund(refund)
            }
            return APIObjects.intent(payload.intent)
        }
    }

    /// A message whose snapshot no longer reads (written by a newer program): the ids, so the
    /// receiver can fetch the object.
    private static func unreadable(_ message: OutboxMessage) -> JSONValue {
        .orderedObject([("object", "payment_intent"), ("id", .string(message.intentID)), ("snapshot_unreadable", true)])
    }
}
