import Foundation

// The rows of idempotency keys; the rules are `IdempotencyStore`'s. Keys are bound in their
// stored form (`IdempotencyStore.storedKey`): a key holding a card number is kept as its digest.
extension SQLitePaymentTransaction {
    func idempotencyRecord(key: String, scope: String) throws -> IdempotencyRecord? {
        try database.queryFirst(
            SharedSQL.idempotencyRecordByKey.sqlite, [IdempotencyStore.storedKey(key), scope]
        ) { row in IdempotencyRows.record(row, key: key, scope: scope) }
    }

    func insertIdempotencyRecord(_ record: IdempotencyRecord) throws {
        let result = record.result
        try database.execute(
            SharedSQL.insertIdempotencyKey.sqlite,
            [IdempotencyStore.storedKey(record.key), record.scope, record.requestHash, record.state.rawValue, IdempotencyRows.outcome(result),
             result?.response, result?.errorCode, result?.errorMessage, record.createdAt, record.lockedAt,
             record.state == .completed ? record.createdAt : nil, record.resourceID])
    }

    func completeIdempotencyClaim(key: String, scope: String, requestHash: String, result: StoredIdempotentResult, at now: Date) throws {
        try database.execute(
            SharedSQL.completeIdempotencyKey.sqlite,
            [IdempotencyRows.outcome(result), result.response, result.errorCode, result.errorMessage, now, IdempotencyStore.storedKey(key), scope, requestHash])
    }

    func relockIdempotencyClaim(key: String, scope: String, at now: Date) throws {
        try database.execute(SharedSQL.relockIdempotencyKey.sqlite, [now, IdempotencyStore.storedKey(key), scope])
    }

    func attachIdempotencyResource(_ resourceID: String, key: String, scope: String) throws {
        try database.execute(
            SharedSQL.setIdempotencyKeyResource.sqlite,
            [resourceID, IdempotencyStore.storedKey(key), scope])
    }

    func deleteIdempotencyRecord(key: String, scope: String, onlyInProgress: Bool) throws {
        try database.execute(
            "DELETE FROM idempotency_keys WHERE key = ? AND scope = ?\(onlyInProgress ? " AND status = 'in_progress'" : "")",
            [IdempotencyStore.storedKey(key), scope])
    }

    func purgeIdempotencyRecords(createdAtOrBefore cutoff: Date) throws -> Int {
        try database.execute(SharedSQL.purgeIdempotencyKeys.sqlite, [cutoff])
        return database.changes
    }
}
