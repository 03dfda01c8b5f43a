#if PostgreSQL
import Foundation
import PayPanel

/// The `NotificationStore` on PostgreSQL: `scheduled_notifications` (Migrations/postgresql/0003)
/// in the payments store's schema, on its pool. Every write takes one transaction-scoped
/// advisory lock first, so deliverers on several servers run one at a time: each notification
/// is delivered once and delivery sequences stay 1, 2, 3… with no gap or duplicate.
public final class PostgreSQLNotificationStore: NotificationStore {
    let pool: PostgreSQLConnectionPool
    private var current: PostgreSQLNotificationTransaction?

    /// A store on the schema `payments` works in (it is migrated by then).
    public init(sharingConnectionsWith payments: PostgreSQLPaymentStore) {
        pool = payments.pool
    }

    static let writeLock = PostgreSQLStatement(
        "notifications.lock", "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('paypanel notifications', 0))")

    package func write<T>(_ body: (any NotificationStoreTransaction) throws -> T) throws -> T {
        if let current { return try body(current) }
        return try transaction(begin: "BEGIN ISOLATION LEVEL READ COMMITTED", lock: true, body)
    }

    package func read<T>(_ body: (any NotificationStoreTransaction) throws -> T) throws -> T {
        if let current { return try body(current) }
        return try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", lock: false, body)
    }

    private func transaction<T>(begin: String, lock: Bool, _ body: (PostgreSQLNotificationTransaction) throws -> T) throws -> T {
        try pool.withConnection { connection in
            let transaction = PostgreSQLNotificationTransaction(connection: connection)
            try connection.executeScript(begin, name: "begin")
            do {
                if lock { try connection.execute(Self.writeLock, []) }
                current = transaction
                defer { current = nil }
                let value = try body(transaction)
                try connection.executeScript("COMMIT", name: "commit")
                return value
            } catch {
                _ = try? connection.executeScript("ROLLBACK", name: "rollback")
                throw error
            }
        }
    }
}

/// The statements of one transaction on `scheduled_notifications`.
struct PostgreSQLNotificationTransaction: NotificationStoreTransaction {
    let connection: PostgreSQLConnection
    typealias S = PostgreSQLStatement

    private static let columns = SharedSQL.scheduledNotificationColumns

    static let insert = S("notifications.insert", """
        INSERT INTO scheduled_notifications (deliver_at, category, title, subtitle, body, body_hidden, thread_id, \
        order_reference, user_info, payload, reveals_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        RETURNING id
        """)
    static let byID = S("notifications.by_id", SharedSQL.notificationByID.postgreSQL)
    static let due = S("notifications.due", SharedSQL.dueScheduledNotifications.postgreSQL)
    static let markDeliveredStatement = S("notifications.mark_delivered", SharedSQL.markNotificationDelivered.postgreSQL)
    static let latestSequence = S("notifications.latest_sequence", SharedSQL.lastNotificationDeliverySequence.postgreSQL)
    static let deliveredAfter = S("notifications.delivered_after", """
        SELECT \(columns) FROM scheduled_notifications
        WHERE delivery_sequence > $1 AND (($2::text IS NOT NULL AND thread_id = $2) OR ($3::text IS NOT NULL AND order_reference = $3))
        ORDER BY delivery_sequence
        """)
    static let markRespondedStatement = S("notifications.mark_responded", SharedSQL.recordNotificationResponse.postgreSQL)
    static let all = S("notifications.all", "SELECT \(columns) FROM scheduled_notifications ORDER BY id")
    static let pending = S("notifications.pending", "SELECT \(columns) FROM scheduled_notifications WHERE delivered_at IS NULL ORDER BY id")
    static let delivered = S("notifications.delivered", """
        SELECT \(columns) FROM scheduled_notifications WHERE delivered_at IS NOT NULL AND responded_at IS NULL ORDER BY id
        """)
    static let responded = S(
        "notifications.responded", "SELECT \(columns) FROM scheduled_notifications WHERE responded_at IS NOT NULL ORDER BY id")
    static let nextPending = S("notifications.next_pending", SharedSQL.nextPendingNotification.postgreSQL)

    func insertNotification(_ request: NotificationRequest, reveals: Int64?, createdAt: Date) throws -> Int64 {
        let values: [any DatabaseBindable] = [
            request.deliverAt, request.category, request.content.title, request.content.subtitle, request.content.body,
            request.bodyHidden, request.threadID, request.orderReference, JSONWriter.string(.object(request.userInfo)),
            request.payload.map { JSONWriter.string(.object($0)) }, reveals, createdAt,
        ]
        return try connection.execute(Self.insert, values).rows.first?.int64(0) ?? 0
    }

    func notification(id: Int64) throws -> ScheduledNotification? {
        try connection.execute(Self.byID, [id]).rows.first.map(Self.notification(from:))
    }

    func dueNotificationIDs(at now: Date, limit: Int?) throws -> [Int64] {
        try connection.execute(Self.due, [now, limit.map(Int64.init)]).rows.map { $0.int64(0) }
    }

    func markDelivered(id: Int64, at: Date, sequence: Int64) throws -> Bool {
        try connection.execute(Self.markDeliveredStatement, [at, sequence, id]).affectedRows > 0
    }

    func latestDeliverySequence() throws -> Int64 {
        try connection.execute(Self.latestSequence, []).rows.first?.int64(0) ?? 0
    }

    func notificationsDelivered(after sequence: Int64, threadID: String?, orderReference: String?) throws -> [ScheduledNotification] {
        try connection.execute(Self.deliveredAfter, [sequence, threadID, orderReference]).rows.map(Self.notification(from:))
    }

    func markResponded(id: Int64, action: String, at: Date) throws -> Bool {
        try connection.execute(Self.markRespondedStatement, [at, action, id]).affectedRows > 0
    }

    func notifications(in state: ScheduledNotification.State?) throws -> [ScheduledNotification] {
        let statement = switch state {
        case nil: Self.all
        case .pending: Self.pending
        case .delivered: Self.delivered
        case .responded: Self.responded
        }
        return try connection.execute(statement, []).rows.map(Self.notification(from:))
    }

    func nextPendingNotification() throws -> ScheduledNotification? {
        try connection.execute(Self.nextPending, []).rows.first.map(Self.notification(from:))
    }

    private static func notification(from row: PostgreSQLRow) -> ScheduledNotification {
        let request = NotificationRequest(
            deliverAt: PaymentRows.date(row.int64(1)), category: row.optionalString(2),
            content: NotificationContent(title: row.optionalString(3), subtitle: row.optionalString(4), body: row.optionalString(5)),
            bodyHidden: row.bool(6), threadID: row.optionalString(7), orderReference: row.optionalString(8),
            userInfo: storedObject(row.string(9)) ?? JSONObject(), payload: row.optionalString(10).flatMap(storedObject))
        return ScheduledNotification(
            id: row.int64(0), request: request, createdAt: PaymentRows.date(row.int64(12)),
            deliveredAt: row.optionalInt64(13).map(PaymentRows.date), deliverySequence: row.optionalInt64(14),
            respondedAt: row.optionalInt64(15).map(PaymentRows.date), responseAction: row.optionalString(16),
            revealsID: row.optionalInt64(11))
    }

    private static func storedObject(_ text: String) -> JSONObject? {
        (try? JSONParser().parse(text))?.objectValue
    }
}
#endif
