import Foundation

// The events of some objects (an intent and its refunds), for the console's list of an
// intent's webhook deliveries. SQLite only, like the rest of the webhook tables for now.
extension SQLiteWebhookStore {
    /// The events about `objectIDs` (intent or refund ids), newest first, at most `limit`.
    /// `webhook_events` has no index on `object_id` (migration 0006): this scans the table,
    /// which is fine for an operator's page, not for a hot path.
    package func events(aboutObjects objectIDs: [String], limit: Int) throws -> [StoredEvent] {
        guard !objectIDs.isEmpty, limit > 0 else { return [] }
        let marks = Array(repeating: "?", count: objectIDs.count).joined(separator: ", ")
        let values: [any DatabaseBindable] = objectIDs + [limit]
        return try database.read {
            try database.queryAll(
                "SELECT id, type, object_id, created_at, body FROM webhook_events WHERE object_id IN (\(marks)) ORDER BY seq DESC LIMIT ?",
                values
            ) { row in
                StoredEvent(id: row.string(0), type: row.string(1), objectID: row.string(2), createdAt: PaymentRows.date(row.int64(3)), body: row.string(4))
            }
        }
    }
}
