import Foundation

extension UnpublishedMessage {
    /// When the change the message announces was made.
    var changedAt: Date {
        switch self {
        case .payment(let message): message.createdAt
        case .checkout(let message): message.checkout.updatedAt
        }
    }

    /// The two outboxes' messages (each oldest first, as read) merged oldest first by the time
    /// each change was made; within one outbox, changes of the same millisecond keep their row
    /// order (a stable merge: Swift's sort is not stable). Every `WebhookStore` publishes in
    /// this order.
    package static func mergedOldestFirst(payments: [UnpublishedMessage], checkouts: [UnpublishedMessage]) -> [UnpublishedMessage] {
        var merged: [UnpublishedMessage] = []
        merged.reserveCapacity(payments.count + checkouts.count)
        var paymentsLeft = payments[...]
        var checkoutsLeft = checkouts[...]
        while let nextPayment = paymentsLeft.first, let nextCheckout = checkoutsLeft.first {
            if nextCheckout.changedAt < nextPayment.changedAt {
                merged.append(nextCheckout)
                checkoutsLeft = checkoutsLeft.dropFirst()
            } else {
                merged.append(nextPayment)
                paymentsLeft = paymentsLeft.dropFirst()
            }
        }
        return merged + paymentsLeft + checkoutsLeft
    }
}
