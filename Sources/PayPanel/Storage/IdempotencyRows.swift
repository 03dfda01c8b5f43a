import Foundation

/// Idempotency-key rows as values, read the same way from SQLite and PostgreSQL: both select
/// `columns` in this order and insert `insertColumns`. Each store keeps its own SQL text only
/// for its placeholders (`?` or `$1`).
package enum IdempotencyRows {
    /// The columns `record(_:key:scope:)` reads, in its order.
    package static let columns = "request_hash, status, outcome, response, error_code, error_message, created_at, locked_at, resource_id"

    /// The columns a new key's row is inserted with; each store binds its values in this order.
    package static let insertColumns =
        "key, scope, request_hash, status, outcome, response, error_code, error_message, created_at, locked_at, completed_at, resource_id"

    /// The key `key` in `scope` from a row of `columns`. A status the code does not know is read
    /// as in progress.
    package static func record(_ row: some StoredRow, key: String, scope: String) -> IdempotencyRecord {
        let state = IdempotencyRecord.State(rawValue: row.string(1)) ?? .inProgress
        let result = state == .completed
            ? StoredIdempotentResult(
                succeeded: row.optionalString(2) == "succeeded", response: row.optionalString(3),
                errorCode: row.optionalString(4), errorMessage: row.optionalString(5))
            : nil
        return IdempotencyRecord(
            key: key, scope: scope, requestHash: row.string(0), state: state, result: result,
            createdAt: PaymentRows.date(row.int64(6)), lockedAt: row.optionalInt64(7).map(PaymentRows.date),
            resourceID: row.optionalString(8))
    }

    /// The `outcome` column of a completed key: `succeeded` or `failed` (nil while in progress).
    package static func outcome(_ result: StoredIdempotentResult?) -> String? {
        result.map { $0.succeeded ? "succeeded" : "failed" }
    }
}
