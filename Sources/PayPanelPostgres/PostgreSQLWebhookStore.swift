#if PostgreSQL
import Foundation
import PayPanel

/// `WebhookStore` on PostgreSQL (Migrations/postgresql/0006), in the payments store's schema and
/// on its connection pool, for several `serve` processes on one database.
///
/// What keeps servers from doing one piece of work twice:
/// - **Publishing** takes one transaction-scoped advisory lock, so publishers run one at a time:
///   `seq` follows commit order (a cursor never skips an event committed later with a smaller
///   number), and a message two servers read at once becomes one event — the second insert
///   meets `UNIQUE (source, source_id)` and makes no delivery.
/// - **Claiming deliveries** is `SELECT … FOR UPDATE OF d SKIP LOCKED`, then the lease in the
///   same transaction: a relay never waits for another's claim and never takes a delivery
///   another holds; once the claim commits, the lease keeps the delivery out of every claim
///   until it runs out (at-least-once only across a crash, with the same `webhook-id`).
///
/// Statements with several steps run in the payments store's transactions (conflict retries,
/// COMMIT read-back); single statements run on their own. One owner, like every store.
public final class PostgreSQLWebhookStore: WebhookStore {
    let transactions: PostgreSQLPaymentStore
    typealias S = PostgreSQLStatement

    /// A store on the schema `payments` works in (it is migrated by then).
    public init(sharingConnectionsWith payments: PostgreSQLPaymentStore) {
        transactions = payments
    }

    func read<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try transactions.withTransaction(writing: false, body)
    }

    func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try transactions.withTransaction(writing: true, body)
    }

    /// One statement, its own transaction.
    @discardableResult
    func single(_ statement: S, _ values: [any DatabaseBindable]) throws -> PostgreSQLResult {
        try transactions.pool.withConnection { try $0.execute(statement, values) }
    }

    // MARK: - Events

    static let unpublishedPayments = S("webhooks.unpublished_payments", SharedSQL.undeliveredOutboxMessages.postgreSQL)
    static let unpublishedCheckouts = S("webhooks.unpublished_checkouts", SharedSQL.unpublishedCheckoutMessages.postgreSQL)

    package func unpublishedMessages(limit: Int) throws -> [UnpublishedMessage] {
        try read { connection in
            let payments = try connection.execute(Self.unpublishedPayments, [Int64(limit)]).rows.map { row in
                UnpublishedMessage.payment(OutboxMessage(
                    id: row.int64(0), intentID: row.string(1), intentVersion: row.int64(2), topic: row.string(3),
                    refundID: row.optionalString(4), payload: row.string(5), createdAt: PaymentRows.date(row.int64(6))))
            }
            let checkouts = try connection.execute(Self.unpublishedCheckouts, [Int64(limit)]).rows.map { row in
                UnpublishedMessage.checkout(CheckoutMessage(
                    id: row.int64(11), topic: row.string(12), checkout: try PostgreSQLPaymentStore.checkout(row)))
            }
            return UnpublishedMessage.mergedOldestFirst(payments: payments, checkouts: checkouts)
        }
    }

    static let publishLock = S(
        "webhooks.publish_lock", "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('paypanel webhooks publish', 0))")
    static let insertEvent = S("webhooks.insert_event", SharedSQL.insertWebhookEventOnce.postgreSQL)
    static let markPaymentPublished = S("webhooks.mark_outbox_published", SharedSQL.markOutboxMessageDeliveredOnce.postgreSQL)
    static let markCheckoutPublished = S(
        "webhooks.mark_checkout_outbox_published", SharedSQL.markCheckoutMessagePublished.postgreSQL)
    static let insertDelivery = S("webhooks.insert_delivery", SharedSQL.insertWebhookDelivery.postgreSQL)

    package func publish(_ events: [NewEvent], at now: Date) throws -> [StoredEvent] {
        try write { connection in
            try connection.execute(Self.publishLock, [])
            let endpoints = try connection.execute(Self.activeEndpoints, []).rows.map { try WebhookRows.endpoint($0) }
            var inserted: [StoredEvent] = []
            for event in events {
                let isNew = try connection.execute(Self.insertEvent, [
                    event.id, event.type, event.objectID, event.createdAt, event.source.rawValue, event.sourceID, event.body,
                ]).affectedRows == 1
                switch event.source {
                case .outbox: try connection.execute(Self.markPaymentPublished, [now, event.sourceID])
                case .checkoutOutbox: try connection.execute(Self.markCheckoutPublished, [now, event.sourceID])
                }
                guard isNew else { continue }
                for endpoint in endpoints where endpoint.wants(event.type) {
                    try connection.execute(Self.insertDelivery, [event.id, endpoint.id, now, now])
                }
                inserted.append(StoredEvent(id: event.id, type: event.type, objectID: event.objectID, createdAt: event.createdAt, body: event.body))
            }
            return inserted
        }
    }

    static let eventColumns = SharedSQL.webhookEventColumns
    static let eventByID = S("webhooks.event_by_id", SharedSQL.webhookEventByID.postgreSQL)
    // A NULL type matches every event. A cursor that names no event matches none (seq < NULL).
    static let eventsNewest = S("webhooks.events_newest", """
        SELECT \(eventColumns) FROM webhook_events WHERE ($1::text IS NULL OR type = $1) ORDER BY seq DESC LIMIT $2
        """)
    static let eventsOlder = S("webhooks.events_older", """
        SELECT \(eventColumns) FROM webhook_events
        WHERE ($1::text IS NULL OR type = $1) AND seq < (SELECT seq FROM webhook_events WHERE id = $2) ORDER BY seq DESC LIMIT $3
        """)
    static let eventsNewer = S("webhooks.events_newer", """
        SELECT \(eventColumns) FROM webhook_events
        WHERE ($1::text IS NULL OR type = $1) AND seq > (SELECT seq FROM webhook_events WHERE id = $2) ORDER BY seq ASC LIMIT $3
        """)

    static func event(_ row: PostgreSQLRow, offset: Int = 0) -> StoredEvent {
        StoredEvent(
            id: row.string(offset), type: row.string(offset + 1), objectID: row.string(offset + 2),
            createdAt: PaymentRows.date(row.int64(offset + 3)), body: row.string(offset + 4))
    }

    package func event(_ id: String) throws -> StoredEvent? {
        try single(Self.eventByID, [id]).rows.first.map { Self.event($0) }
    }

    package func events(type: String?, page: EventPage, limit: Int) throws -> [StoredEvent] {
        let rows: [PostgreSQLRow]
        switch page {
        case .first:
            rows = try single(Self.eventsNewest, [type, Int64(limit)]).rows
        case .olderThan(let id):
            rows = try single(Self.eventsOlder, [type, id, Int64(limit)]).rows
        case .newerThan(let id):
            // Read oldest first (nearest the cursor), then turned round: newest first.
            rows = try single(Self.eventsNewer, [type, id, Int64(limit)]).rows.reversed()
        }
        return rows.map { Self.event($0) }
    }

    // MARK: - Endpoints

    static let endpointColumns = SharedSQL.webhookEndpointColumns
    static let activeEndpoints = S("webhooks.active_endpoints", SharedSQL.enabledWebhookEndpoints.postgreSQL)
    static let insertEndpointStatement = S("webhooks.insert_endpoint", SharedSQL.insertWebhookEndpoint.postgreSQL)
    static let endpointByID = S("webhooks.endpoint_by_id", SharedSQL.liveWebhookEndpoint.postgreSQL)
    static let allEndpoints = S("webhooks.endpoints", SharedSQL.liveWebhookEndpoints.postgreSQL)
    static let updateEndpointStatement = S("webhooks.update_endpoint", SharedSQL.updateWebhookEndpoint.postgreSQL)
    static let deleteEndpointStatement = S(
        "webhooks.delete_endpoint", SharedSQL.deleteWebhookEndpoint.postgreSQL)

    package func insertEndpoint(_ endpoint: WebhookEndpointRecord) throws {
        try single(Self.insertEndpointStatement, [
            endpoint.id, endpoint.url, JSONWriter.string(.array(endpoint.eventTypes.map(JSONValue.string))), endpoint.status.rawValue,
            endpoint.disabledReason, endpoint.sealedSecret, endpoint.secretVersion, endpoint.previousSealedSecret,
            endpoint.previousSecretVersion, endpoint.previousExpiresAt, endpoint.createdAt,
        ])
    }

    package func endpoint(_ id: String) throws -> WebhookEndpointRecord? {
        try single(Self.endpointByID, [id]).rows.first.map { try WebhookRows.endpoint($0) }
    }

    package func endpoints() throws -> [WebhookEndpointRecord] {
        try single(Self.allEndpoints, []).rows.map { try WebhookRows.endpoint($0) }
    }

    package func updateEndpoint(_ endpoint: WebhookEndpointRecord) throws -> Bool {
        try single(Self.updateEndpointStatement, [
            endpoint.status.rawValue, endpoint.disabledReason, endpoint.sealedSecret, endpoint.secretVersion,
            endpoint.previousSealedSecret, endpoint.previousSecretVersion, endpoint.previousExpiresAt, endpoint.id,
        ]).affectedRows == 1
    }

    public func deleteEndpoint(_ id: String, at now: Date) throws -> Bool {
        try single(Self.deleteEndpointStatement, [now, id]).affectedRows == 1
    }
}
#endif
