#if PostgreSQL
import Foundation
import PayPanel

// The rows of idempotency keys; the rules are `IdempotencyStore`'s. Keys are bound in their
// stored form (`IdempotencyStore.storedKey`): a key holding a card number is kept as its digest.
extension PostgreSQLPaymentTransaction {
    // A key's row may not exist yet, so there is no row to lock: a transaction-scoped advisory
    // lock on (scope, key) makes concurrent duplicates queue, and the second reads the first's
    // committed row, as SQLite's single writer gives for free.
    static let idempotencyLock = S(
        "idempotency.lock",
        "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('paypanel idempotency ' || $1 || ' ' || $2, 0))")
    static let idempotencyByKey = S(
        "idempotency.by_key", SharedSQL.idempotencyRecordByKey.postgreSQL)

    func idempotencyRecord(key: String, scope: String) throws -> IdempotencyRecord? {
        // The lock's answer is nothing: it is queued, and taken before the read that follows it.
        if writing { try queue(Self.idempotencyLock, [scope, IdempotencyStore.storedKey(key)]) }
        return try rows(Self.idempotencyByKey, [IdempotencyStore.storedKey(key), scope]).first.map { row in
            IdempotencyRows.record(row, key: key, scope: scope)
        }
    }

    static let insertIdempotency = S(
        "idempotency.insert", SharedSQL.insertIdempotencyKey.postgreSQL)

    func insertIdempotencyRecord(_ record: IdempotencyRecord) throws {
        let result = record.result
        try queue(Self.insertIdempotency, [
            IdempotencyStore.storedKey(record.key), record.scope, record.requestHash, record.state.rawValue, IdempotencyRows.outcome(result),
            result?.response, result?.errorCode, result?.errorMessage, record.createdAt, record.lockedAt,
            record.state == .completed ? record.createdAt : nil, record.resourceID,
        ])
    }

    static let completeIdempotency = S("idempotency.complete", SharedSQL.completeIdempotencyKey.postgreSQL)

    func completeIdempotencyClaim(key: String, scope: String, requestHash: String, result: StoredIdempotentResult, at now: Date) throws {
        try queue(Self.completeIdempotency, [
            IdempotencyRows.outcome(result), result.response, result.errorCode, result.errorMessage, now, IdempotencyStore.storedKey(key), scope, requestHash,
        ])
    }

    static let relockIdempotency = S("idempotency.relock", SharedSQL.relockIdempotencyKey.postgreSQL)

    func relockIdempotencyClaim(key: String, scope: String, at now: Date) throws {
        try queue(Self.relockIdempotency, [now, IdempotencyStore.storedKey(key), scope])
    }

    static let attachIdempotency = S(
        "idempotency.attach",
        SharedSQL.setIdempotencyKeyResource.postgreSQL)

    func attachIdempotencyResource(_ resourceID: String, key: String, scope: String) throws {
        try queue(Self.attachIdempotency, [resourceID, IdempotencyStore.storedKey(key), scope])
    }

    static let deleteIdempotency = S("idempotency.delete", "DELETE FROM idempotency_keys WHERE key = $1 AND scope = $2")
    static let deleteIdempotencyInProgress = S(
        "idempotency.delete_in_progress", "DELETE FROM idempotency_keys WHERE key = $1 AND scope = $2 AND status = 'in_progress'")

    func deleteIdempotencyRecord(key: String, scope: String, onlyInProgress: Bool) throws {
        try queue(onlyInProgress ? Self.deleteIdempotencyInProgress : Self.deleteIdempotency, [IdempotencyStore.storedKey(key), scope])
    }

    static let purgeIdempotency = S("idempotency.purge", SharedSQL.purgeIdempotencyKeys.postgreSQL)

    func purgeIdempotencyRecords(createdAtOrBefore cutoff: Date) throws -> Int {
        try run(Self.purgeIdempotency, [cutoff])
    }
}
#endif
