import Foundation

/// The embedded `PaymentStore`: one SQLite file (WAL with group commit, `BEGIN IMMEDIATE`
/// writes), migrated by the embedded `Migrations/*.sql`.
///
/// Like its `Database`, it has one owner and is not `Sendable`: `PaymentService` (an actor)
/// owns the one the server uses. Several processes may open the same file; SQLite's write
/// lock serializes their transactions.
package final class SQLitePaymentStore: PaymentStore {
    /// The connection, for SQLite-specific tooling (migrations, tests that read rows).
    package let database: Database

    /// A store on an open, migrated payments database.
    package init(database: Database) {
        self.database = database
    }

    /// Opens (creating when missing, mode 0600) and migrates the payments database at `path`.
    package convenience init(path: String, clock: any WallClock, options: Database.Options = Database.Options()) throws {
        self.init(database: try Database.openMigrated(path: path, set: .main, clock: clock, options: options))
    }

    package func write<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        let transaction = SQLitePaymentTransaction(database: database)
        return try database.write { try body(transaction) }
    }

    /// The commit's flush is shared with the writers that commit while this one waits
    /// (`Database.write(awaitingFlush:)`).
    package nonisolated(nonsending) func writeAwaitingFlush<T>(_ body: (any PaymentStoreTransaction) throws -> T) async throws -> T {
        let transaction = SQLitePaymentTransaction(database: database)
        return try await database.write(awaitingFlush: { try body(transaction) })
    }

    package func read<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        let transaction = SQLitePaymentTransaction(database: database)
        return try database.read { try body(transaction) }
    }

    /// The commits and settled reads in `body` leave their flush to one wait at the end
    /// (`Database.collectingFlushes`), which suspends the caller; the flush is shared with the
    /// other writers of the file meanwhile.
    package nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try await database.awaitingFlush(body)
    }
}

extension DatabaseError: RetryableStoreError {
    /// SQLite's busy and locked codes: `Database.write` already retried until its busy timeout.
    package var isRetryableConflict: Bool { isBusy }
}

/// The statements of one SQLite transaction. Valid only inside the `write`/`read` that made it.
struct SQLitePaymentTransaction: PaymentStoreTransaction {
    let database: Database

    // MARK: - Intents, attempts, refunds, history

    func intent(_ id: String) throws -> PaymentIntent? {
        try database.queryFirst(SharedSQL.intentByID.sqlite, [id]) {
            row throws(PaymentStoreError) in try PaymentRows.intent(row)
        }
    }

    func attempts(ofIntent intentID: String) throws -> [Attempt] {
        try database.queryAll(SharedSQL.attemptsOfIntent.sqlite, [intentID]) { row throws(PaymentStoreError) in try PaymentRows.attempt(row) }
    }

    func refunds(ofIntent intentID: String) throws -> [Refund] {
        try database.queryAll(
            PaymentRows.selectRefundsSQL, [intentID]
        ) { row throws(PaymentStoreError) in try PaymentRows.refund(row) }
    }

    func insertIntent(_ intent: PaymentIntent) throws {
        try PaymentRows.insertIntent(intent, into: database)
    }

    func updateIntent(_ intent: PaymentIntent, previousVersion: Int64) throws -> Bool {
        try PaymentRows.updateIntent(intent, previousVersion: previousVersion, in: database)
    }

    func saveAttempt(_ attempt: Attempt) throws {
        try PaymentRows.upsertAttempt(attempt, in: database)
    }

    func saveRefund(_ refund: Refund) throws {
        try PaymentRows.upsertRefund(refund, in: database)
    }

    func appendEvent(_ event: StoredPaymentEvent) throws {
        try database.execute(
            SharedSQL.insertEvent.sqlite,
            [event.intentID, event.version, event.type, event.fromStatus?.rawValue, event.toStatus.rawValue, event.data, event.occurredAt])
    }

    func events(ofIntent intentID: String) throws -> [PaymentEventRecord] {
        try database.queryAll(
            SharedSQL.eventsOfIntent.sqlite,
            [intentID]
        ) { row in
            PaymentEventRecord(
                version: row.int64(0), type: row.string(1), fromStatus: row.optionalString(2).flatMap(PaymentStatus.init(rawValue:)),
                toStatus: PaymentStatus(rawValue: row.string(3)), data: row.string(4), occurredAt: PaymentRows.date(row.int64(5)))
        }
    }

    func forEachIntent(status: PaymentStatus?, limit: Int?, _ body: (PaymentIntent) throws -> Void) throws {
        let limitValue = Int64(limit ?? -1)  // SQLite: a negative LIMIT means none
        if let status {
            try database.query(
                "SELECT \(PaymentRows.intentColumns) FROM intents WHERE status = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                [status.rawValue, limitValue]
            ) { row in try body(try PaymentRows.intent(row)) }
        } else {
            try database.query(
                "SELECT \(PaymentRows.intentColumns) FROM intents ORDER BY created_at DESC, id DESC LIMIT ?", [limitValue]
            ) { row in try body(try PaymentRows.intent(row)) }
        }
    }

    func intents(status: PaymentStatus?, metadata: [String: String], page: IntentPage, limit: Int) throws -> [PaymentIntent] {
        var conditions: [String] = []
        var values: [any DatabaseBindable] = []
        if let status {
            conditions.append("status = ?")
            values.append(status.rawValue)
        }
        if !metadata.isEmpty {
            // No wanted pair is missing from the intent's metadata.
            conditions.append("""
                NOT EXISTS (SELECT 1 FROM json_each(?) AS wanted WHERE NOT EXISTS (
                    SELECT 1 FROM json_each(intents.metadata) AS held WHERE held.key = wanted.key AND held.value = wanted.value))
                """)
            values.append(JSONWriter.string(.object(JSONObject(metadata.map { (key: $0.key, value: JSONValue.string($0.value)) }))))
        }
        var order = "DESC"
        switch page {
        case .first: break
        case .olderThan(let createdAt, let id):
            conditions.append("(created_at < ? OR (created_at = ? AND id < ?))")
            values += [createdAt, createdAt, id]
        case .newerThan(let createdAt, let id):
            conditions.append("(created_at > ? OR (created_at = ? AND id > ?))")
            values += [createdAt, createdAt, id]
            order = "ASC"
        }
        values.append(Int64(limit))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let rows = try database.queryAll(
            "SELECT \(PaymentRows.intentColumns) FROM intents \(filter) ORDER BY created_at \(order), id \(order) LIMIT ?", values
        ) { row throws(PaymentStoreError) in try PaymentRows.intent(row) }
        // The page before a cursor is read oldest first (nearest the cursor), then turned round.
        return order == "ASC" ? rows.reversed() : rows
    }

    func refund(_ id: String) throws -> Refund? {
        try database.queryFirst(SharedSQL.refundByID.sqlite, [id]) {
            row throws(PaymentStoreError) in try PaymentRows.refund(row)
        }
    }

    func allIntentIDs() throws -> [String] {
        try database.queryAll(SharedSQL.intentIDsInCreationOrder.sqlite, []) { $0.string(0) }
    }

    func eventCount() throws -> Int {
        try database.queryFirst(SharedSQL.eventCount.sqlite, []) { Int($0.int64(0)) } ?? 0
    }

    func integrityFindings() throws -> [String] {
        var findings: [String] = []
        let integrity = try database.queryAll("PRAGMA integrity_check", []) { $0.string(0) }
        if integrity != ["ok"] { findings += integrity.map { "integrity_check: \($0)" } }
        findings += try database.queryAll("PRAGMA foreign_key_check", []) { "foreign_key_check: \($0.string(0)) row \($0.int64(1))" }
        return findings
    }
}
