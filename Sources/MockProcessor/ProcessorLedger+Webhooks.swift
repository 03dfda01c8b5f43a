import Foundation
import PayPanel

/// A webhook endpoint of one account, as the ledger keeps it (the secret still sealed).
public struct MockWebhookEndpointRow: Sendable, Equatable {
    public let id: String
    public let account: String
    public let url: String
    /// The event types it wants, or `["*"]`.
    public let enabledEvents: [String]
    public let sealedSecret: [UInt8]
    public let description: String?
    public let createdAt: Date

    public init(id: String, account: String, url: String, enabledEvents: [String], sealedSecret: [UInt8], description: String?, createdAt: Date) {
        self.id = id
        self.account = account
        self.url = url
        self.enabledEvents = enabledEvents
        self.sealedSecret = sealedSecret
        self.description = description
        self.createdAt = createdAt
    }

    /// Whether an event of `type` goes to this endpoint.
    public func wants(_ type: String) -> Bool {
        enabledEvents.contains("*") || enabledEvents.contains(type)
    }
}

/// One event still to be delivered to one endpoint.
public struct MockWebhookDelivery: Sendable, Equatable {
    public let eventID: String
    public let endpointID: String
    public let account: String
    public let url: String
    public let sealedSecret: [UInt8]
    public let body: [UInt8]
    public let attempts: Int
    public let nextAttemptAt: Date
}

/// What the ledger knows about one delivery (for tests and `GET /_mock/webhook_deliveries`).
public struct MockWebhookDeliveryState: Sendable, Equatable {
    public let eventID: String
    public let endpointID: String
    public let type: String
    public let status: String
    public let attempts: Int
    public let nextAttemptAt: Date
    public let lastStatus: Int?
    public let lastError: String?
}

/// The webhook tables (`Migrations/processor/0003_webhooks.sql`). Each change is one
/// transaction, so an event and its deliveries appear together or not at all.
extension ProcessorLedger {
    func insertEndpoint(_ endpoint: MockWebhookEndpointRow) throws {
        try database.write {
            try database.execute(
                """
                INSERT INTO webhook_endpoints (id, account, url, enabled_events, sealed_secret, description, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [endpoint.id, endpoint.account, endpoint.url, endpoint.enabledEvents.joined(separator: ","), endpoint.sealedSecret,
                 endpoint.description, endpoint.createdAt])
        }
    }

    func endpoints(account: String) throws -> [MockWebhookEndpointRow] {
        try database.read {
            try database.queryAll(
                "SELECT id, account, url, enabled_events, sealed_secret, description, created_at FROM webhook_endpoints WHERE account = ? ORDER BY created_at DESC, id DESC",
                [account], Self.endpointRow)
        }
    }

    /// Deletes the endpoint (and its deliveries); false when the account has no such endpoint.
    func deleteEndpoint(id: String, account: String) throws -> Bool {
        try database.write {
            try database.execute("DELETE FROM webhook_endpoints WHERE id = ? AND account = ?", [id, account])
            return database.changes > 0
        }
    }

    private static func endpointRow(_ row: Row) -> MockWebhookEndpointRow {
        MockWebhookEndpointRow(
            id: row.string(0), account: row.string(1), url: row.string(2),
            enabledEvents: row.string(3).split(separator: ",").map(String.init), sealedSecret: row.blob(4),
            description: row.optionalString(5), createdAt: Timestamp.date(epochMilliseconds: row.int64(6)))
    }

    /// Records the event and one pending delivery per endpoint of its account that wants its
    /// type, due at `dueAt`; returns how many deliveries were made (0: no endpoint wants it,
    /// and then nothing is stored).
    func enqueueEvent(id: String, account: String, type: String, body: [UInt8], createdAt: Date, dueAt: Date) throws -> Int {
        try database.write {
            let wanting = try database.queryAll(
                "SELECT id, account, url, enabled_events, sealed_secret, description, created_at FROM webhook_endpoints WHERE account = ?",
                [account], Self.endpointRow
            ).filter { $0.wants(type) }
            guard !wanting.isEmpty else { return 0 }
            try database.execute(
                "INSERT INTO webhook_events (id, account, type, body, created_at) VALUES (?, ?, ?, ?, ?)", [id, account, type, body, createdAt])
            for endpoint in wanting {
                try database.execute(
                    "INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at) VALUES (?, ?, 'pending', 0, ?)",
                    [id, endpoint.id, dueAt])
            }
            return wanting.count
        }
    }

    /// Pending deliveries, the earliest due first (at most `limit`), whatever their account's
    /// clock says: the caller compares each with its account's time.
    func pendingDeliveries(limit: Int) throws -> [MockWebhookDelivery] {
        try database.read {
            try database.queryAll(
                """
                SELECT d.event_id, d.endpoint_id, e.account, w.url, w.sealed_secret, e.body, d.attempts, d.next_attempt_at
                FROM webhook_deliveries d
                JOIN webhook_events e ON e.id = d.event_id
                JOIN webhook_endpoints w ON w.id = d.endpoint_id
                WHERE d.status = 'pending'
                ORDER BY d.next_attempt_at, d.event_id
                LIMIT ?
                """, [limit]
            ) { row in
                MockWebhookDelivery(
                    eventID: row.string(0), endpointID: row.string(1), account: row.string(2), url: row.string(3), sealedSecret: row.blob(4),
                    body: row.blob(5), attempts: Int(row.int64(6)), nextAttemptAt: Timestamp.date(epochMilliseconds: row.int64(7)))
            }
        }
    }

    /// Records one attempt's result: delivered, retry at `nextAttemptAt`, or failed for good.
    func recordAttempt(eventID: String, endpointID: String, status: String, nextAttemptAt: Date?, httpStatus: Int?, error: String?) throws {
        try database.write {
            try database.execute(
                """
                UPDATE webhook_deliveries
                SET status = ?, attempts = attempts + 1, next_attempt_at = COALESCE(?, next_attempt_at), last_status = ?, last_error = ?
                WHERE event_id = ? AND endpoint_id = ?
                """, [status, nextAttemptAt, httpStatus, error, eventID, endpointID])
        }
    }

    func deliveries(account: String) throws -> [MockWebhookDeliveryState] {
        try database.read {
            try database.queryAll(
                """
                SELECT d.event_id, d.endpoint_id, e.type, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error
                FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
                WHERE e.account = ? ORDER BY e.created_at, d.event_id, d.endpoint_id
                """, [account]
            ) { row in
                MockWebhookDeliveryState(
                    eventID: row.string(0), endpointID: row.string(1), type: row.string(2), status: row.string(3), attempts: Int(row.int64(4)),
                    nextAttemptAt: Timestamp.date(epochMilliseconds: row.int64(5)), lastStatus: row.optionalInt64(6).map(Int.init),
                    lastError: row.optionalString(7))
            }
        }
    }

    /// Makes every delivery of the account's event `id` pending again, due at `now` (a test's
    /// redelivery); returns how many there are (0: no such event).
    func resendEvent(id: String, account: String, now: Date) throws -> Int {
        try database.write {
            try database.execute(
                """
                UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?
                WHERE event_id = ? AND event_id IN (SELECT id FROM webhook_events WHERE account = ?)
                """, [now, id, account])
            return database.changes
        }
    }

    /// Forgets one account's events and deliveries, or everyone's. Endpoints stay: they are
    /// configuration (a `serve` that registered itself keeps receiving after a test's reset).
    func resetWebhooks(account: String?) throws {
        try database.write {
            guard let account else {
                try database.execute("DELETE FROM webhook_deliveries", [])
                try database.execute("DELETE FROM webhook_events", [])
                return
            }
            try database.execute(
                "DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE account = ?)", [account])
            try database.execute("DELETE FROM webhook_events WHERE account = ?", [account])
        }
    }
}
