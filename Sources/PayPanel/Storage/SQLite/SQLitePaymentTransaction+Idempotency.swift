import Foundation

// The rows of idempotency keys; the rules are `IdempotencyStore`'s. Keys are bound in their
// stored form (`IdempotencyStore.storedKey`): a key holding a card number is kept as its digest.
extension SQLitePaymentTransaction {
    func idempotencyRecord(key: String, scope: String) throws -> IdempotencyRecord? {
        try database.queryFirst(
            "SELECT \(IdempotencyRows.columns) FROM idempotency_keys WHERE key = ? AND scope = ?", [IdempotencyStore.storedKey(key), scope]
        ) { row in IdempotencyRows.record(row, key: key, scope: scope) }
    }

    func insertIdempotencyRecord(_ record: IdempotencyRecord) throws {
        let result = record.result
        try database.execute(
            "INSERT INTO idempotency_keys (\(IdempotencyRows.insertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [IdempotencyStore.storedKey(record.key), record.scope, record.requestHash, record.state.rawValue, IdempotencyRows.outcome(result),
             result?.response, result?.errorCode, result?.errorMessage, record.createdAt, record.lockedAt,
             record.state == .completed ? record.createdAt : nil, record.resourceID])
    }

    func completeIdempotencyClaim(key: String, scope: String, requestHash: String, result: StoredIdempotentResult, at now: Date) throws {
        try database.execute(
            """
            UPDATE idempotency_keys SET status = 'completed', outcome = ?, response = ?, error_code = ?, error_message = ?,
                locked_at = NULL, completed_at = ?
            WHERE key = ? AND scope = ? AND request_hash = ?
            """,
            [IdempotencyRows.outcome(result), result.response, result.errorCode, result.errorMessage, now, IdempotencyStore.storedKey(key), scope, requestHash])
    }

    func relockIdempotencyClaim(key: String, scope: String, at now: Date) throws {
        try database.execute("UPDATE idempotency_keys SET locked_at = ? WHERE key = ? AND scope = ?", [now, IdempotencyStore.storedKey(key), scope])
    }

    func attachIdempotencyResource(_ resourceID: String, key: String, scope: String) throws {
        try database.execute(
            "UPDATE idempotency_keys SET resource_id = ? WHERE key = ? AND scope = ? AND status = 'in_progress'",
            [resourceID, IdempotencyStore.storedKey(key), scope])
    }

    func deleteIdempotencyRecord(key: String, scope: String, onlyInProgress: Bool) throws {
        try database.execute(
            "DELETE FROM idempotency_keys WHERE key = ? AND scope = ?\(onlyInProgress ? " AND status = 'in_progress'" : "")",
            [IdempotencyStore.storedKey(key), scope])
    }

    func purgeIdempotencyRecords(createdAtOrBefore cutoff: Date) throws -> Int {
        try database.execute("DELETE FROM idempotency_keys WHERE created_at <= ?", [cutoff])
        return database.changes
    }
}
