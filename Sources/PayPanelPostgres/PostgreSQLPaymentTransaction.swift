#if PostgreSQL
import Foundation
import PayPanel

/// The statements of one PostgreSQL transaction of `PostgreSQLPaymentStore`. Valid only inside
/// the `write`/`read` that made it. In a write, reads of an intent lock its row: that is what
/// serializes two writers on one intent, as `BEGIN IMMEDIATE` does in SQLite. The lock is
/// `FOR NO KEY UPDATE` (an intent's id never changes): it excludes every other writer of the
/// intent but not the key-share locks of rows that merely reference it (a checkout's foreign
/// key), so the checkout desk never waits behind a transition.
///
/// Statements whose answer the caller does not use (inserts, deletes, advisory locks, an
/// update whose row count is already certain) are not sent at once: `queue` holds them on the
/// connection until the next statement whose answer is needed, or the COMMIT, and they leave
/// together in one pipeline (`PostgreSQLConnection.runPipeline`), in the order they were made.
struct PostgreSQLPaymentTransaction: PaymentStoreTransaction {
    let connection: PostgreSQLConnection
    let writing: Bool
    /// The intents whose rows this transaction holds, and the version each is at: read
    /// `FOR NO KEY UPDATE`, inserted, or updated here. No other transaction can move such a row
    /// until this one ends, so an update of it from that version cannot miss.
    let held = HeldIntents()

    final class HeldIntents {
        var versions: [String: Int64] = [:]
    }

    typealias S = PostgreSQLStatement

    func rows(_ statement: S, _ values: [any DatabaseBindable] = []) throws -> [PostgreSQLRow] {
        try connection.execute(statement, values).rows
    }

    func run(_ statement: S, _ values: [any DatabaseBindable] = []) throws -> Int {
        try connection.execute(statement, values).affectedRows
    }

    /// `statement`, sent with the next statement whose answer is needed, or the COMMIT. An
    /// error it meets (a constraint, a conflict) is thrown there, and rolls the transaction
    /// back as before.
    func queue(_ statement: S, _ values: [any DatabaseBindable] = []) throws {
        try connection.deferStatement(statement, values)
    }

    // MARK: - Intents, attempts, refunds, history

    static let intentByID = S("intents.by_id", SharedSQL.intentByID.postgreSQL)
    static let intentByIDLocked = S("intents.by_id_for_update", "SELECT \(PaymentRows.intentColumns) FROM intents WHERE id = $1 FOR NO KEY UPDATE")

    func intent(_ id: String) throws -> PaymentIntent? {
        let intent = try rows(writing ? Self.intentByIDLocked : Self.intentByID, [id]).first.map { row throws(PaymentStoreError) in
            try PaymentRows.intent(row)
        }
        if writing, let intent { held.versions[id] = intent.version }
        return intent
    }

    static let attemptsOfIntent = S("attempts.of_intent", SharedSQL.attemptsOfIntent.postgreSQL)

    func attempts(ofIntent intentID: String) throws -> [Attempt] {
        try rows(Self.attemptsOfIntent, [intentID]).map { row throws(PaymentStoreError) in try PaymentRows.attempt(row) }
    }

    static let refundsOfIntent = S(
        "refunds.of_intent", "SELECT \(PaymentRows.refundColumns) FROM refunds WHERE intent_id = $1 ORDER BY created_at, seq")

    func refunds(ofIntent intentID: String) throws -> [Refund] {
        try rows(Self.refundsOfIntent, [intentID]).map { row throws(PaymentStoreError) in try PaymentRows.refund(row) }
    }

    static let insertIntentStatement = S(
        "intents.insert", "INSERT INTO intents (\(PaymentRows.intentColumns)) VALUES (\(placeholders(1...30)))")

    func insertIntent(_ intent: PaymentIntent) throws {
        try queue(Self.insertIntentStatement, PaymentRows.intentValues(intent))
        // Invisible to other transactions until this one commits: nobody else can move it.
        held.versions[intent.id] = intent.version
    }

    static let updateIntentStatement = S(
        "intents.update",
        // Only what a transition can change, as on SQLite (`PaymentRows.intentChangingColumns`).
        "UPDATE intents SET (\(PaymentRows.intentChangingColumns)) = (\(placeholders(1...23))) WHERE id = $24 AND version = $25")

    /// When this transaction holds the row at `previousVersion`, the update cannot miss, so it
    /// is queued and answers true; its row count is still checked when its answer is read, and
    /// a miss throws the error a missed update ends in on a row read in the same transaction
    /// (`PaymentLedger`'s `versionConflict`), rolling everything back. Otherwise (the caller
    /// works from a copy read earlier) the answer decides what the caller does next, so the
    /// update is sent at once.
    func updateIntent(_ intent: PaymentIntent, previousVersion: Int64) throws -> Bool {
        let values = PaymentRows.changingIntentValues(intent) + [intent.id, previousVersion]
        guard writing, held.versions[intent.id] == previousVersion else {
            let updated = try run(Self.updateIntentStatement, values) == 1
            if updated, writing { held.versions[intent.id] = intent.version }
            return updated
        }
        let intentID = intent.id
        try connection.deferStatement(Self.updateIntentStatement, values) { result in
            guard result.affectedRows == 1 else {
                throw PaymentStoreError(reason: .versionConflict(intentID: intentID, expected: previousVersion, actual: -1))
            }
        }
        held.versions[intent.id] = intent.version
        return true
    }

    static let upsertAttempt = S(
        "attempts.upsert", "INSERT INTO attempts (\(PaymentRows.attemptColumns)) VALUES (\(placeholders(1...22))) \(PaymentRows.attemptConflictUpdate)")

    func saveAttempt(_ attempt: Attempt) throws {
        try queue(Self.upsertAttempt, PaymentRows.attemptValues(attempt))
    }

    static let upsertRefund = S(
        "refunds.upsert", "INSERT INTO refunds (\(PaymentRows.refundColumns)) VALUES (\(placeholders(1...15))) \(PaymentRows.refundConflictUpdate)")

    func saveRefund(_ refund: Refund) throws {
        try queue(Self.upsertRefund, PaymentRows.refundValues(refund))
    }

    static let insertEvent = S(
        "events.insert",
        SharedSQL.insertEvent.postgreSQL)

    func appendEvent(_ event: StoredPaymentEvent) throws {
        try queue(Self.insertEvent, [
            event.intentID, event.version, event.type, event.fromStatus?.rawValue, event.toStatus.rawValue, event.data, event.occurredAt,
        ])
    }

    static let eventsOfIntent = S(
        "events.of_intent",
        SharedSQL.eventsOfIntent.postgreSQL)

    func events(ofIntent intentID: String) throws -> [PaymentEventRecord] {
        try rows(Self.eventsOfIntent, [intentID]).map { row in
            PaymentEventRecord(
                version: row.int64(0), type: row.string(1), fromStatus: row.optionalString(2).flatMap(PaymentStatus.init(rawValue:)),
                toStatus: PaymentStatus(rawValue: row.string(3)), data: row.string(4), occurredAt: PaymentRows.date(row.int64(5)))
        }
    }

    func forEachIntent(status: PaymentStatus?, limit: Int?, _ body: (PaymentIntent) throws -> Void) throws {
        // Pages of 500 keep memory flat however many intents there are.
        var remaining = limit
        var cursor: (createdAt: Date, id: String)?
        while remaining.map({ $0 > 0 }) ?? true {
            let size = min(remaining ?? 500, 500)
            let page = try intents(status: status, page: cursor.map { .olderThan(createdAt: $0.createdAt, id: $0.id) } ?? .first, limit: size)
            for intent in page { try body(intent) }
            guard page.count == size, let last = page.last else { return }
            cursor = (last.createdAt, last.id)
            remaining = remaining.map { $0 - page.count }
        }
    }

    // A NULL status matches every intent. The metadata filter ($3 or $5) is a JSON object, or
    // NULL for none; containment (`@>`) holds when every wanted pair is in the intent's metadata.
    static let intentsNewestFirst = S("intents.newest_first", """
        SELECT \(PaymentRows.intentColumns) FROM intents
        WHERE ($1::text IS NULL OR status = $1) AND ($3::jsonb IS NULL OR metadata::jsonb @> $3::jsonb)
        ORDER BY created_at DESC, id DESC LIMIT $2
        """)
    static let intentsOlder = S("intents.page_older", """
        SELECT \(PaymentRows.intentColumns) FROM intents
        WHERE ($1::text IS NULL OR status = $1) AND (created_at < $2 OR (created_at = $2 AND id < $3))
            AND ($5::jsonb IS NULL OR metadata::jsonb @> $5::jsonb)
        ORDER BY created_at DESC, id DESC LIMIT $4
        """)
    static let intentsNewer = S("intents.page_newer", """
        SELECT \(PaymentRows.intentColumns) FROM intents
        WHERE ($1::text IS NULL OR status = $1) AND (created_at > $2 OR (created_at = $2 AND id > $3))
            AND ($5::jsonb IS NULL OR metadata::jsonb @> $5::jsonb)
        ORDER BY created_at ASC, id ASC LIMIT $4
        """)

    func intents(status: PaymentStatus?, metadata: [String: String], page: IntentPage, limit: Int) throws -> [PaymentIntent] {
        let read: [PostgreSQLRow]
        let filter: String? = metadata.isEmpty
            ? nil : JSONWriter.string(.object(JSONObject(metadata.map { (key: $0.key, value: JSONValue.string($0.value)) })))
        switch page {
        case .first:
            read = try rows(Self.intentsNewestFirst, [status?.rawValue, Int64(limit), filter])
        case .olderThan(let createdAt, let id):
            read = try rows(Self.intentsOlder, [status?.rawValue, createdAt, id, Int64(limit), filter])
        case .newerThan(let createdAt, let id):
            // Read oldest first (nearest the cursor), then turned round.
            read = try rows(Self.intentsNewer, [status?.rawValue, createdAt, id, Int64(limit), filter]).reversed()
        }
        return try read.map { row throws(PaymentStoreError) in try PaymentRows.intent(row) }
    }

    static let refundByID = S("refunds.by_id", SharedSQL.refundByID.postgreSQL)

    func refund(_ id: String) throws -> Refund? {
        try rows(Self.refundByID, [id]).first.map { row throws(PaymentStoreError) in try PaymentRows.refund(row) }
    }

    static let allIntentIDsStatement = S("intents.all_ids", SharedSQL.intentIDsInCreationOrder.postgreSQL)

    func allIntentIDs() throws -> [String] {
        try rows(Self.allIntentIDsStatement).map { $0.string(0) }
    }

    static let eventCountStatement = S("events.count", SharedSQL.eventCount.postgreSQL)

    func eventCount() throws -> Int {
        try rows(Self.eventCountStatement).first.map { $0.int(0) } ?? 0
    }

    // PostgreSQL checks its own pages; what can drift is a row that breaks a rule the schema
    // does not hold: an event history with a gap, or a child row whose intent is missing.
    static let historyGaps = S("integrity.history_gaps", """
        SELECT i.id FROM intents i LEFT JOIN (SELECT intent_id, count(*) AS n, max(version) AS top FROM events GROUP BY intent_id) e
            ON e.intent_id = i.id
        WHERE coalesce(e.n, 0) <> i.version OR coalesce(e.top, 0) <> i.version ORDER BY i.id
        """)

    func integrityFindings() throws -> [String] {
        try rows(Self.historyGaps).map { "history: intent \($0.string(0)) has not exactly one event per version" }
    }

    /// `$first, …, $last`.
    static func placeholders(_ range: ClosedRange<Int>) -> String {
        range.map { "$\($0)" }.joined(separator: ", ")
    }
}
#endif
