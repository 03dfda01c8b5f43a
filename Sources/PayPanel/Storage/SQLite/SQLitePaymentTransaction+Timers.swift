import Foundation

// Timers, reconciliation work, the outbox and inbox, and the token replay guard.
extension SQLitePaymentTransaction {
    // MARK: - Timers

    func scheduleTimer(_ timer: PaymentTimer, intentID: String, at now: Date) throws {
        try database.execute(
            SharedSQL.upsertTimer.sqlite,
            [intentID, timer.kind.rawValue, timer.reference, timer.dueAt, now])
    }

    func cancelTimer(_ kind: PaymentTimer.Kind, reference: String, intentID: String) throws {
        try database.execute(
            SharedSQL.deleteIntentTimer.sqlite, [intentID, kind.rawValue, reference])
    }

    func dueTimers(at now: Date, limit: Int, intentID: String?) throws -> [DueTimer] {
        let filter = intentID == nil ? "" : " AND intent_id = ?"
        let values: [any DatabaseBindable] = [now] + (intentID.map { [$0] } ?? []) + [limit]
        return try database.queryAll(
            "SELECT id, intent_id, kind, reference, due_at FROM timers WHERE due_at <= ?\(filter) ORDER BY due_at, id LIMIT ?",
            values, Self.dueTimer
        ).compactMap { $0 }
    }

    func timers(ofIntent intentID: String) throws -> [DueTimer] {
        try database.queryAll(
            SharedSQL.timersOfIntent.sqlite,
            [intentID], Self.dueTimer
        ).compactMap { $0 }
    }

    private static func dueTimer(_ row: Row) -> DueTimer? {
        // The CHECK constraint admits only known kinds.
        guard let kind = PaymentTimer.Kind(rawValue: row.string(2)) else { return nil }
        return DueTimer(id: row.int64(0), intentID: row.string(1), kind: kind, reference: row.string(3), dueAt: PaymentRows.date(row.int64(4)))
    }

    func isStillDue(_ timer: DueTimer, at now: Date) throws -> Bool {
        try database.queryFirst(
            SharedSQL.timerStillDue.sqlite, [timer.id, timer.dueAt, now]) { _ in true } ?? false
    }

    func deleteTimer(id: Int64) throws {
        try database.execute(SharedSQL.deleteTimer.sqlite, [id])
    }

    // MARK: - Reconciliation

    func callsAwaitingReconciliation(limit: Int) throws -> [AwaitingCall] {
        var calls = try database.queryAll(
            SharedSQL.intentsWithUnknownOutcome.sqlite, [limit]
        ) { row -> AwaitingCall? in
            guard let kind = InFlightOperation.Kind(rawValue: row.string(1)) else { return nil }
            let operation = InFlightOperation(kind: kind, attemptID: row.string(2), amount: 1, startedAt: PaymentRows.date(row.int64(3)))
            return AwaitingCall(intentID: row.string(0), call: operation.call, since: PaymentRows.date(row.int64(3)), lookups: row.int(4))
        }.compactMap { $0 }
        calls += try database.queryAll(
            SharedSQL.pendingRefunds.sqlite, [limit]
        ) { row in AwaitingCall(intentID: row.string(0), call: .refund(refundID: row.string(1)), since: PaymentRows.date(row.int64(2)), lookups: row.int(3)) }
        return Array(calls.sorted { $0.since < $1.since }.prefix(limit))
    }

    // MARK: - Outbox and inbox

    func appendOutbox(_ message: NewOutboxMessage) throws {
        try database.execute(
            SharedSQL.insertOutboxMessage.sqlite,
            [message.intentID, message.intentVersion, message.topic, message.refundID, message.payload, message.createdAt])
    }

    func outbox(ofIntent intentID: String) throws -> [OutboxMessage] {
        try database.queryAll(SharedSQL.outboxOfIntent.sqlite, [intentID], Self.outboxMessage)
    }

    func undeliveredOutbox(limit: Int) throws -> [OutboxMessage] {
        try database.queryAll(SharedSQL.undeliveredOutboxMessages.sqlite, [limit], Self.outboxMessage)
    }

    private static func outboxMessage(_ row: Row) -> OutboxMessage {
        OutboxMessage(
            id: row.int64(0), intentID: row.string(1), intentVersion: row.int64(2), topic: row.string(3),
            refundID: row.optionalString(4), payload: row.string(5), createdAt: PaymentRows.date(row.int64(6)))
    }

    func markOutboxDelivered(_ ids: [Int64], at now: Date) throws {
        for id in ids {
            try database.execute(SharedSQL.markOutboxMessageDelivered.sqlite, [now, id])
        }
    }

    func recordInboxEvent(source: String, eventID: String, intentID: String?, at now: Date) throws -> Bool {
        try database.execute(
            SharedSQL.insertInboxMessage.sqlite,
            [source, eventID, intentID, now])
        return database.changes == 1
    }

    // MARK: - Apple Pay token replay guard

    func tokenTransaction(_ transactionID: String) throws -> String?? {
        try database.queryFirst(
            SharedSQL.intentOfSeenTokenTransaction.sqlite, [transactionID]) { $0.optionalString(0) }
    }

    func insertTokenTransaction(_ transactionID: String, intentID: String?, attemptID: String?, at now: Date) throws {
        try database.execute(
            SharedSQL.insertSeenTokenTransaction.sqlite,
            [transactionID, intentID, attemptID, now])
    }
}
