#if PostgreSQL
import Foundation
import PayPanel

// Timers, reconciliation work, the outbox and inbox, and the token replay guard.
extension PostgreSQLPaymentTransaction {
    // MARK: - Timers

    static let scheduleTimerStatement = S("timers.schedule", SharedSQL.upsertTimer.postgreSQL)

    func scheduleTimer(_ timer: PaymentTimer, intentID: String, at now: Date) throws {
        try queue(Self.scheduleTimerStatement, [intentID, timer.kind.rawValue, timer.reference, timer.dueAt, now])
    }

    static let cancelTimerStatement = S("timers.cancel", SharedSQL.deleteIntentTimer.postgreSQL)

    func cancelTimer(_ kind: PaymentTimer.Kind, reference: String, intentID: String) throws {
        try queue(Self.cancelTimerStatement, [intentID, kind.rawValue, reference])
    }

    static let dueTimersStatement = S("timers.due", """
        SELECT id, intent_id, kind, reference, due_at FROM timers
        WHERE due_at <= $1 AND ($2::text IS NULL OR intent_id = $2) ORDER BY due_at, id LIMIT $3
        """)

    func dueTimers(at now: Date, limit: Int, intentID: String?) throws -> [DueTimer] {
        try rows(Self.dueTimersStatement, [now, intentID, Int64(limit)]).compactMap(Self.dueTimer)
    }

    static let timersOfIntent = S(
        "timers.of_intent", SharedSQL.timersOfIntent.postgreSQL)

    func timers(ofIntent intentID: String) throws -> [DueTimer] {
        try rows(Self.timersOfIntent, [intentID]).compactMap(Self.dueTimer)
    }

    private static func dueTimer(_ row: PostgreSQLRow) -> DueTimer? {
        guard let kind = PaymentTimer.Kind(rawValue: row.string(2)) else { return nil }  // the CHECK admits known kinds only
        return DueTimer(id: row.int64(0), intentID: row.string(1), kind: kind, reference: row.string(3), dueAt: PaymentRows.date(row.int64(4)))
    }

    // The claim of a timer: its intent's row first (the order every transition locks in, so
    // firing never deadlocks with one), skipped when another server holds it; then the timer.
    static let claimTimerIntent = S("timers.claim_intent", "SELECT 1 FROM intents WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED")
    static let claimTimer = S(
        "timers.claim", "SELECT 1 FROM timers WHERE id = $1 AND due_at = $2 AND due_at <= $3 FOR UPDATE SKIP LOCKED")
    static let timerStillDue = S("timers.still_due", SharedSQL.timerStillDue.postgreSQL)

    /// In a write, a claim: false when another server is firing it (or moving its intent) right
    /// now; it fires on a later pass if still due then.
    func isStillDue(_ timer: DueTimer, at now: Date) throws -> Bool {
        guard writing else { return !(try rows(Self.timerStillDue, [timer.id, timer.dueAt, now])).isEmpty }
        guard !(try rows(Self.claimTimerIntent, [timer.intentID])).isEmpty else { return false }
        return !(try rows(Self.claimTimer, [timer.id, timer.dueAt, now])).isEmpty
    }

    static let deleteTimerStatement = S("timers.delete", SharedSQL.deleteTimer.postgreSQL)

    func deleteTimer(id: Int64) throws {
        try queue(Self.deleteTimerStatement, [id])
    }

    // MARK: - Reconciliation

    static let callsInFlight = S("reconciliation.in_flight", SharedSQL.intentsWithUnknownOutcome.postgreSQL)
    static let refundsPending = S("reconciliation.pending_refunds", SharedSQL.pendingRefunds.postgreSQL)

    func callsAwaitingReconciliation(limit: Int) throws -> [AwaitingCall] {
        var calls = try rows(Self.callsInFlight, [Int64(limit)]).compactMap { row -> AwaitingCall? in
            guard let kind = InFlightOperation.Kind(rawValue: row.string(1)) else { return nil }
            let operation = InFlightOperation(kind: kind, attemptID: row.string(2), amount: 1, startedAt: PaymentRows.date(row.int64(3)))
            return AwaitingCall(intentID: row.string(0), call: operation.call, since: PaymentRows.date(row.int64(3)), lookups: Int(row.int64(4)))
        }
        calls += try rows(Self.refundsPending, [Int64(limit)]).map { row in
            AwaitingCall(intentID: row.string(0), call: .refund(refundID: row.string(1)), since: PaymentRows.date(row.int64(2)), lookups: Int(row.int64(3)))
        }
        return Array(calls.sorted { $0.since < $1.since }.prefix(limit))
    }

    // MARK: - Outbox and inbox

    static let appendOutboxStatement = S(
        "outbox.append",
        SharedSQL.insertOutboxMessage.postgreSQL)

    func appendOutbox(_ message: NewOutboxMessage) throws {
        try queue(Self.appendOutboxStatement, [
            message.intentID, message.intentVersion, message.topic, message.refundID, message.payload, message.createdAt,
        ])
    }

    static let outboxColumns = SharedSQL.outboxColumns
    static let outboxOfIntent = S("outbox.of_intent", SharedSQL.outboxOfIntent.postgreSQL)
    static let outboxUndelivered = S("outbox.undelivered", SharedSQL.undeliveredOutboxMessages.postgreSQL)
    static let outboxClaim = S(
        "outbox.claim", "SELECT \(outboxColumns) FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED")

    func outbox(ofIntent intentID: String) throws -> [OutboxMessage] {
        try rows(Self.outboxOfIntent, [intentID]).map(Self.outboxMessage)
    }

    /// In a write, a claim: the messages are locked until it commits, and messages another
    /// relay holds are skipped, so two relays never send one message twice.
    func undeliveredOutbox(limit: Int) throws -> [OutboxMessage] {
        try rows(writing ? Self.outboxClaim : Self.outboxUndelivered, [Int64(limit)]).map(Self.outboxMessage)
    }

    private static func outboxMessage(_ row: PostgreSQLRow) -> OutboxMessage {
        OutboxMessage(
            id: row.int64(0), intentID: row.string(1), intentVersion: row.int64(2), topic: row.string(3),
            refundID: row.optionalString(4), payload: row.string(5), createdAt: PaymentRows.date(row.int64(6)))
    }

    static let markDeliveredStatement = S(
        "outbox.mark_delivered", SharedSQL.markOutboxMessageDelivered.postgreSQL)

    func markOutboxDelivered(_ ids: [Int64], at now: Date) throws {
        for id in ids { try queue(Self.markDeliveredStatement, [now, id]) }
    }

    static let recordInbox = S(
        "inbox.record",
        SharedSQL.insertInboxMessage.postgreSQL)

    func recordInboxEvent(source: String, eventID: String, intentID: String?, at now: Date) throws -> Bool {
        try run(Self.recordInbox, [source, eventID, intentID, now]) == 1
    }

    // MARK: - Apple Pay token replay guard

    static let tokenLock = S("tokens.lock", "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('paypanel token ' || $1, 0))")
    static let tokenByID = S("tokens.by_id", SharedSQL.intentOfSeenTokenTransaction.postgreSQL)

    /// In a write, the id is locked first (it may not have a row yet), so two payments with
    /// one token queue and the second sees the first's row.
    func tokenTransaction(_ transactionID: String) throws -> String?? {
        // Queued: taken before the read that follows it, in the same pipeline.
        if writing { try queue(Self.tokenLock, [transactionID]) }
        return try rows(Self.tokenByID, [transactionID]).first.map { $0.optionalString(0) }
    }

    static let insertToken = S(
        "tokens.insert", SharedSQL.insertSeenTokenTransaction.postgreSQL)

    func insertTokenTransaction(_ transactionID: String, intentID: String?, attemptID: String?, at now: Date) throws {
        try queue(Self.insertToken, [transactionID, intentID, attemptID, now])
    }
}
#endif
