import Foundation

/// The embedded `NotificationStore`: the `scheduled_notifications` table of the payments
/// database (migration 0003). Like its `Database`, it has one owner and is not `Sendable`.
package final class SQLiteNotificationStore: NotificationStore {
    /// The connection, for SQLite-specific tooling.
    package let database: Database

    /// A store on an open, migrated payments database.
    package init(database: Database) {
        self.database = database
    }

    package func write<T>(_ body: (any NotificationStoreTransaction) throws -> T) throws -> T {
        let transaction = SQLiteNotificationTransaction(database: database)
        return try database.write { try body(transaction) }
    }

    package func read<T>(_ body: (any NotificationStoreTransaction) throws -> T) throws -> T {
        let transaction = SQLiteNotificationTransaction(database: database)
        return try database.read { try body(transaction) }
    }
}

/// The statements of one SQLite transaction on `scheduled_notifications`.
struct SQLiteNotificationTransaction: NotificationStoreTransaction {
    let database: Database

    private static let columns = SharedSQL.scheduledNotificationColumns

    func insertNotification(_ request: NotificationRequest, reveals: Int64?, createdAt: Date) throws -> Int64 {
        let values: [any DatabaseBindable] = [
            request.deliverAt, request.category, request.content.title, request.content.subtitle, request.content.body,
            request.bodyHidden, request.threadID, request.orderReference, JSONWriter.string(.object(request.userInfo)),
            request.payload.map { JSONWriter.string(.object($0)) }, reveals, createdAt,
        ]
        try database.execute("""
            INSERT INTO scheduled_notifications (deliver_at, category, title, subtitle, body, body_hidden, thread_id, \
            order_reference, user_info, payload, reveals_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, values)
        return database.lastInsertRowID
    }

    func notification(id: Int64) throws -> ScheduledNotification? {
        try database.queryFirst(SharedSQL.notificationByID.sqlite, [id], Self.notification(from:))
    }

    func dueNotificationIDs(at now: Date, limit: Int?) throws -> [Int64] {
        try database.queryAll(
            SharedSQL.dueScheduledNotifications.sqlite,
            [now, limit.map(Int64.init) ?? -1]) { $0.int64(0) }  // SQLite: a negative LIMIT means none
    }

    func markDelivered(id: Int64, at: Date, sequence: Int64) throws -> Bool {
        try database.execute(
            SharedSQL.markNotificationDelivered.sqlite,
            [at, sequence, id])
        return database.changes > 0
    }

    func latestDeliverySequence() throws -> Int64 {
        try database.queryFirst(SharedSQL.lastNotificationDeliverySequence.sqlite) { $0.int64(0) } ?? 0
    }

    func notificationsDelivered(after sequence: Int64, threadID: String?, orderReference: String?) throws -> [ScheduledNotification] {
        try database.queryAll("""
            SELECT \(Self.columns) FROM scheduled_notifications
            WHERE delivery_sequence > ? AND ((?2 IS NOT NULL AND thread_id = ?2) OR (?3 IS NOT NULL AND order_reference = ?3))
            ORDER BY delivery_sequence
            """, [sequence, threadID, orderReference], Self.notification(from:))
    }

    func markResponded(id: Int64, action: String, at: Date) throws -> Bool {
        try database.execute(
            SharedSQL.recordNotificationResponse.sqlite,
            [at, action, id])
        return database.changes > 0
    }

    func notifications(in state: ScheduledNotification.State?) throws -> [ScheduledNotification] {
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

    func nextPendingNotification() throws -> ScheduledNotification? {
        try database.queryFirst(SharedSQL.nextPendingNotification.sqlite, [], Self.notification(from:))
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
