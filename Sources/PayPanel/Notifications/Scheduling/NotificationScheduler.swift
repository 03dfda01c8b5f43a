import Foundation

/// Scheduled notifications: schedule, deliver what is due, answer with an action, and follow
/// deliveries from another process. The scheduler keeps the rules; rows live behind a
/// `NotificationStore` (the payments database's `scheduled_notifications`, migration 0003).
///
/// Delivery claims rows in one store write transaction, so several `notify deliver`
/// processes on one database show each notification exactly once. Time comes from the injected
/// clock (`--now`). Like its store, a scheduler has one owner and is not `Sendable`.
package final class NotificationScheduler {
    package let store: any NotificationStore
    package let clock: any WallClock
    /// How long after show-me the revealed notification arrives.
    package let revealDelay: TimeInterval

    package static let defaultRevealDelay: TimeInterval = 3

    package init(store: any NotificationStore, clock: any WallClock, revealDelay: TimeInterval = NotificationScheduler.defaultRevealDelay) {
        self.store = store
        self.clock = clock
        self.revealDelay = revealDelay
    }

    /// A scheduler on the embedded store of an open, migrated payments database.
    package convenience init(database: Database, clock: any WallClock, revealDelay: TimeInterval = NotificationScheduler.defaultRevealDelay) {
        self.init(store: SQLiteNotificationStore(database: database), clock: clock, revealDelay: revealDelay)
    }

    // MARK: - Scheduling

    /// Stores `request` and returns it with its id. A hidden body needs the REVEAL category, or
    /// nothing could ever show it.
    @discardableResult
    package func schedule(_ request: NotificationRequest) throws -> ScheduledNotification {
        try check(request)
        let now = clock.now()
        return try store.write { tx in try insert(request, reveals: nil, at: now, in: tx) }
    }

    private func check(_ request: NotificationRequest) throws(NotificationSchedulingError) {
        if request.content.title == nil && request.content.body == nil {
            throw .invalidRequest("a notification needs a title or a body")
        }
        if request.bodyHidden {
            guard request.category == NotificationCategory.reveal.identifier else {
                throw .invalidRequest("a hidden body can only be revealed by the \(NotificationCategory.reveal.identifier) category's show-me action: use category \(NotificationCategory.reveal.identifier)")
            }
            guard let body = request.content.body, !body.isEmpty else {
                throw .invalidRequest("there is no body to hide")
            }
        }
        if let payload = request.payload, PushPayload.compactByteCount(of: .object(payload)) > PushPayload.maximumByteCount {
            throw .invalidRequest(PushPayloadSizeError(byteCount: PushPayload.compactByteCount(of: .object(payload))).message)
        }
    }

    private func insert(
        _ request: NotificationRequest, reveals: Int64?, at now: Date, in tx: any NotificationStoreTransaction
    ) throws -> ScheduledNotification {
        let id = try tx.insertNotification(request, reveals: reveals, createdAt: now)
        guard let stored = try tx.notification(id: id) else { throw NotificationSchedulingError.notFound(id) }
        return stored
    }

    // MARK: - Delivery

    /// Delivers every notification due at the clock's now (deliver-at ≤ now), oldest first, at
    /// most `limit`. Each is claimed — delivered-at and the next delivery sequence set — in
    /// one write transaction, so no other process delivers it too.
    package func deliverDue(limit: Int? = nil) throws -> [ScheduledNotification] {
        let now = clock.now()
        return try store.write { tx in
            let due = try tx.dueNotificationIDs(at: now, limit: limit)
            var sequence = try tx.latestDeliverySequence()
            var delivered: [ScheduledNotification] = []
            for id in due {
                guard try tx.markDelivered(id: id, at: now, sequence: sequence + 1) else { continue }
                sequence += 1
                if let row = try tx.notification(id: id) { delivered.append(row) }
            }
            return delivered
        }
    }

    /// The highest delivery sequence so far (0 when nothing was delivered): where a poller that
    /// only wants new deliveries starts.
    package func latestDeliverySequence() throws -> Int64 {
        try store.read { tx in try tx.latestDeliverySequence() }
    }

    /// Notifications delivered after `sequence` for the panel with `threadID` or
    /// `orderReference`, in delivery order: what an open checkout polls for panel updates.
    package func delivered(after sequence: Int64, threadID: String?, orderReference: String?) throws -> [ScheduledNotification] {
        try store.read { tx in try tx.notificationsDelivered(after: sequence, threadID: threadID, orderReference: orderReference) }
    }

    // MARK: - Responses

    /// Answers delivered notification `id` with `actionIdentifier`, once. show-me on a hidden
    /// body schedules the same notification with the body shown, `revealDelay` seconds later.
    package func respond(id: Int64, action actionIdentifier: String) throws -> NotificationResponse {
        let now = clock.now()
        return try store.write { tx in
            guard let current = try tx.notification(id: id) else { throw NotificationSchedulingError.notFound(id) }
            guard current.deliveredAt != nil else {
                throw NotificationSchedulingError.notDelivered(id: id, deliverAt: current.request.deliverAt)
            }
            if let previous = current.responseAction, let at = current.respondedAt {
                throw NotificationSchedulingError.alreadyAnswered(id: id, action: previous, at: at)
            }
            guard let categoryName = current.request.category, let category = NotificationCategory.named(categoryName) else {
                throw NotificationSchedulingError.noActions(id: id, category: current.request.category)
            }
            guard let action = category.action(named: actionIdentifier) else {
                throw NotificationSchedulingError.unknownAction(action: actionIdentifier, category: category)
            }
            guard try tx.markResponded(id: id, action: action.identifier, at: now) else {
                let answered = try tx.notification(id: id)
                throw NotificationSchedulingError.alreadyAnswered(
                    id: id, action: answered?.responseAction ?? "", at: answered?.respondedAt ?? now)
            }
            var reveal: ScheduledNotification?
            let outcome: String
            if action.identifier == NotificationAction.showMe {
                if current.request.bodyHidden {
                    var request = current.request
                    request.bodyHidden = false
                    request.deliverAt = now.addingTimeInterval(revealDelay)
                    let scheduled = try insert(request, reveals: id, at: now, in: tx)
                    reveal = scheduled
                    outcome = "notification \(scheduled.id) will show the body at \(Timestamp.format(request.deliverAt)) (run notify deliver then)"
                } else {
                    outcome = "the body is already shown; nothing to reveal"
                }
            } else if action.opensApp {
                outcome = "the app opens to take the payment (Pay in app)"
            } else {
                outcome = "the Apple Pay sheet opens for the selected amount"
            }
            guard let answered = try tx.notification(id: id) else { throw NotificationSchedulingError.notFound(id) }
            return NotificationResponse(notification: answered, action: action, reveal: reveal, outcome: outcome)
        }
    }

    // MARK: - Reading

    /// The notification with `id`, or nil.
    package func notification(id: Int64) throws -> ScheduledNotification? {
        try store.read { tx in try tx.notification(id: id) }
    }

    /// Every notification, or only those in `state`, by id.
    package func list(state: ScheduledNotification.State? = nil) throws -> [ScheduledNotification] {
        try store.read { tx in try tx.notifications(in: state) }
    }

    /// The pending notification due soonest, or nil when nothing is pending.
    package func nextPending() throws -> ScheduledNotification? {
        try store.read { tx in try tx.nextPendingNotification() }
    }
}
