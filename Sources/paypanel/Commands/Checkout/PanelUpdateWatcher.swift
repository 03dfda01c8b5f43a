import Foundation
import PayPanel
import PayPanelDemo

/// Brings panel updates to an open checkout: notifications delivered into the payments
/// database for the same thread or order (`paypanel notify deliver` from another terminal,
/// read on this process's own connection from the delivery sequence the checkout started
/// at), and the `--update FILE` payload once `--update-after` seconds have passed on the
/// checkout's clock.
@MainActor
final class PanelUpdateWatcher {
    private let scheduler: NotificationScheduler
    private var cursor: Int64
    private var scheduled: (payload: PushPayload, dueAt: Date)?

    init(scheduler: NotificationScheduler, update: PushPayload?, dueAt: Date) throws {
        self.scheduler = scheduler
        cursor = try scheduler.latestDeliverySequence()
        scheduled = update.map { ($0, dueAt) }
    }

    /// Applies what arrived since the last poll to `flow`; returns a message for each
    /// notification about this panel that could not be applied.
    func poll(_ flow: inout CheckoutFlow, now: Date) throws -> [String] {
        var messages: [String] = []
        if let update = scheduled, now >= update.dueAt {
            scheduled = nil
            if let message = Self.message(for: flow.applyPanelUpdate(update.payload), source: "the --update payload") {
                messages.append(message)
            }
        }
        let arrived = try scheduler.delivered(
            after: cursor, threadID: flow.panel.threadID, orderReference: flow.panel.panel.orderReference)
        for notification in arrived {
            cursor = max(cursor, notification.deliverySequence ?? cursor)
            guard let payload = notification.pushPayload else {
                messages.append("notification \(notification.id) for this order carries no payment-action payload; not applied")
                continue
            }
            if let message = Self.message(for: flow.applyPanelUpdate(payload), source: "notification \(notification.id)") {
                messages.append(message)
            }
        }
        return messages
    }

    /// True while the `--update` payload has not been applied.
    var hasScheduledUpdate: Bool { scheduled != nil }

    private static func message(for outcome: PanelUpdateOutcome, source: String) -> String? {
        switch outcome {
        case .applied: nil
        case .notForThisPanel(let reason), .rejected(let reason): "\(source) was not applied: \(reason)"
        }
    }
}
