import Foundation

/// Scheduled notifications in the payments database (migration 0003): schedule, deliver what is
/// due, answer with an action, and follow deliveries from another process.
///
/// Delivery claims rows in one `BEGIN IMMEDIATE` transaction, so several `notify deliver`
/// processes on one database show each notification exactly once. Time comes from the injected
/// clock (`--now`). Like its `Database`, a scheduler has one owner and is not `Sendable`.
public final class NotificationScheduler {
    public let database: Database
    public let clock: any WallClock
    /// How long after show-me the revealed notification arrives.
    public let revealDelay: TimeInterval

    public static let defaultRevealDelay: TimeInterval = 3

    public init(database: Database, clock: any WallClock, revealDelay: TimeInterval = NotificationScheduler.defaultRevealDelay) {
        self.database = database
        self.clock = clock
        self.revealDelay = revealDelay
    }

    private static let columns = """
        id, deliver_at, category, title, subtitle, body, body_hidden, thread_id, order_reference, user_info, payload, \
        reveals_id, created_at, delivered_at, delivery_sequence, responded_at, response_action
        """

    // MARK: - Scheduling

    /// Stores `request` and returns it with its id. A hidden body needs the REVEAL category, or
    /// nothing could ever show it.
    @discardableResult
    public func schedule(_ request: NotificationRequest) throws -> ScheduledNotification {
        try check(request)
        return try database.write { try insert(request, reveals: nil) }
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

    private func insert(_ request: NotificationRequest, reveals: Int64?) throws -> ScheduledNotification {
        let values: [any DatabaseBindable] = [
            request.deliverAt, request.category, request.content.title, request.content.subtitle, request.content.body,
            request.bodyHidden, request.threadID, request.orderReference, JSONWriter.string(.object(request.userInfo)),
            request.payload.map { JSONWriter.string(.object($0)) }, reveals, clock.now(),
        ]
        try database.execute("""
            INSERT INTO scheduled_notifications (deliver_at, category, title, subtitle, body, body_hidden, thread_id, \
            order_reference, user_info, payload, reveals_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, values)
        let id = database.lastInsertRowID
        guard let stored = try notification(id: id) else { throw NotificationSchedulingError.notFound(id) }
        return stored
    }

    // MARK: - Delivery

    /// Delivers every notification due at the clock's now (deliver-at ≤ now), oldest first, at
    /// most `limit`. Each is claimed — `delivered_at` and the next `delivery_sequence` set — in
    /// one write transaction, so no other process delivers it too.
    public func deliverDue(limit: Int? = nil) throws -> [ScheduledNotification] {
        let now = clock.now()
        return try database.write {
            let due = try database.queryAll(
                "SELECT id FROM scheduled_notifications WHERE delivered_at IS NULL AND deliver_at <= ? ORDER BY deliver_at, id LIMIT ?",
                [now, limit.map(Int64.init) ?? -1]) { $0.int64(0) }
            var sequence = try latestDeliverySequence()
            var delivered: [ScheduledNotification] = []
            for id in due {
                sequence += 1
                try database.execute(
                    "UPDATE scheduled_notifications SET delivered_at = ?, delivery_sequence = ? WHERE id = ? AND delivered_at IS NULL",
                    [now, sequence, id])
                if let row = try notification(id: id) { delivered.append(row) }
            }
            return delivered
        }
    }

    /// The highest delivery sequence so far (0 when nothing was delivered): where a poller that
    /// only wants new deliveries starts.
    public func latestDeliverySequence() throws -> Int64 {
        try database.queryFirst("SELECT coalesce(max(delivery_sequence), 0) FROM scheduled_notifications") { $0.int64(0) } ?? 0
    }

    /// Notifications delivered after `sequence` for the panel with `threadID` or
    /// `orderReference`, in delivery order: what an open checkout polls for panel updates.
    public func delivered(after sequence: Int64, threadID: String?, orderReference: String?) throws -> [ScheduledNotification] {
        try database.queryAll("""
            SELECT \(Self.columns) FROM scheduled_notifications
            WHERE delivery_sequence > ? AND ((?2 IS NOT NULL AND thread_id = ?2) OR (?3 IS NOT NULL AND order_reference = ?3))
            ORDER BY delivery_sequence
            """, [sequence, threadID, orderReference], Self.notification(from:))
    }

    // MARK: - Responses

    /// Answers delivered notification `id` with `actionIdentifier`, once. show-me on a hidden
    /// body schedules the same notification with the body shown, `revealDelay` seconds later.
    public func respond(id: Int64, action actionIdentifier: String) throws -> NotificationResponse {
        let now = clock.now()
        return try database.write {
            guard let current = try notification(id: id) else { throw NotificationSchedulingError.notFound(id) }
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
            try database.execute(
                "UPDATE scheduled_notifications SET responded_at = ?, response_action = ? WHERE id = ? AND responded_at IS NULL",
                [now, action.identifier, id])
            var reveal: ScheduledNotification?
            let outcome: String
            if action.identifier == NotificationAction.showMe {
                if current.request.bodyHidden {
                    var request = current.request
                    request.bodyHidden = false
                    request.deliverAt = now.addingTimeInterval(revealDelay)
                    let scheduled = try insert(request, reveals: id)
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
            guard let answered = try notification(id: id) else { throw NotificationSchedulingError.notFound(id) }
            return NotificationResponse(notification: answered, action: action, reveal: reveal, outcome: outcome)
        }
    }

    // MARK: - Reading

    /// The notification with `id`, or nil.
    public func notification(id: Int64) throws -> ScheduledNotification? {
        try database.queryFirst("SELECT \(Self.columns) FROM scheduled_notifications WHERE id = ?", [id], Self.notification(from:))
    }

    /// Every notification, or only those in `state`, by id.
    public func list(state: ScheduledNotification.State? = nil) throws -> [ScheduledNotification] {
        let condition: String
        switch state {
        case nil: condition = "1"
        case .pending: condition = "delivered_at IS NULL"
        case .delivered: condition = "delivered_at IS NOT NULL AND responded_at IS NULL"
        case .responded: condition = "responded_at IS NOT NULL"
        }
        return try database.queryAll("SELECT \(Self.columns) FROM scheduled_notifications WHERE \(condition) ORDER BY id", [],
                                     Self.notification(from:))
    }

    /// The pending notification due soonest, or nil when nothing is pending.
    public func nextPending() throws -> ScheduledNotification? {
        try database.queryFirst("""
            SELECT \(Self.columns) FROM scheduled_notifications WHERE delivered_at IS NULL ORDER BY deliver_at, id LIMIT 1
            """, [], Self.notification(from:))
    }

    private static func notification(from row: Row) throws -> ScheduledNotification {
        let request = NotificationRequest(
            deliverAt: Timestamp.date(epochMilliseconds: row.int64(1)), category: row.optionalString(2),
            content: NotificationContent(title: row.optionalString(3), subtitle: row.optionalString(4), body: row.optionalString(5)),
            bodyHidden: row.bool(6), threadID: row.optionalString(7), orderReference: row.optionalString(8),
            userInfo: storedObject(row.string(9)) ?? JSONObject(), payload: row.optionalString(10).flatMap(storedObject))
        return ScheduledNotification(
            id: row.int64(0), request: request, createdAt: Timestamp.date(epochMilliseconds: row.int64(12)),
            deliveredAt: row.optionalInt64(13).map(Timestamp.date(epochMilliseconds:)), deliverySequence: row.optionalInt64(14),
            respondedAt: row.optionalInt64(15).map(Timestamp.date(epochMilliseconds:)), responseAction: row.optionalString(16),
            revealsID: row.optionalInt64(11))
    }

    /// A JSON object column, written by `JSONWriter` (nil if someone stored something else).
    private static func storedObject(_ text: String) -> JSONObject? {
        (try? JSONParser().parse(text))?.objectValue
    }
}
