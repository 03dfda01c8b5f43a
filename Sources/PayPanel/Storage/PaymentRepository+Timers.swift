import Foundation

// Timers, reconciliation work, the token replay guard, the inbox and the outbox.
extension PaymentRepository {
    // MARK: - Timers

    /// Timers due at `now`, earliest first; only those of intent `intentID` when given.
    public func dueTimers(at now: Date, limit: Int = 100, intentID: String? = nil) throws -> [DueTimer] {
        let filter = intentID == nil ? "" : " AND intent_id = ?"
        let values: [any DatabaseBindable] = [now] + (intentID.map { [$0] } ?? []) + [limit]
        return try database.queryAll(
            "SELECT id, intent_id, kind, reference, due_at FROM timers WHERE due_at <= ?\(filter) ORDER BY due_at, id LIMIT ?",
            values
        ) { row -> DueTimer? in
            // The CHECK constraint admits only known kinds.
            guard let kind = PaymentTimer.Kind(rawValue: row.string(2)) else { return nil }
            return DueTimer(id: row.int64(0), intentID: row.string(1), kind: kind, reference: row.string(3), dueAt: PaymentRows.date(row.int64(4)))
        }.compactMap { $0 }
    }

    /// Fires a due timer in one transaction. State-machine timers are consumed: the timer row
    /// is deleted and `timerFired` applied; when the machine refuses (the intent moved on), the
    /// deletion alone is committed and the rejection returned. A reconciliation timer is not
    /// consumed here: it returns the call to look up, and the lookup's result (fed back with
    /// `apply`) moves or deletes it.
    public func fireTimer(_ timer: DueTimer, at now: Date) throws -> TimerFiring {
        try database.write {
            let stillDue = try database.queryFirst(
                "SELECT 1 FROM timers WHERE id = ? AND due_at = ? AND due_at <= ?",
                [timer.id, timer.dueAt, now]) { _ in true } ?? false
            guard stillDue else { return .alreadyHandled }
            if timer.kind == .reconciliation {
                if let call = try awaitingCall(intentID: timer.intentID, reference: timer.reference) {
                    return .lookupDue(intentID: timer.intentID, call: call)
                }
                try database.execute("DELETE FROM timers WHERE id = ?", [timer.id])
                return .alreadyHandled
            }
            try database.execute("DELETE FROM timers WHERE id = ?", [timer.id])
            do {
                let transition = try apply(.timerFired(timer.kind, reference: timer.reference), to: timer.intentID, expectedVersion: nil, at: now)
                return .applied(transition)
            } catch let rejection as PaymentRejection {
                return .discarded(rejection)
            }
        }
    }

    /// The processor call of intent `intentID` named by `reference` that still waits for an
    /// answer: the call in flight, or a pending refund.
    public func awaitingCall(intentID: String, reference: String) throws -> ProcessorCall? {
        guard let machine = try loadMachine(intentID) else { return nil }
        if let operation = machine.intent.inFlight, operation.attemptID == reference { return operation.call }
        if machine.refunds.contains(where: { $0.id == reference && $0.status == .pending }) {
            return .refund(refundID: reference)
        }
        return nil
    }

    /// Every call waiting for a processor answer, whatever its schedule (`paypanel reconcile`
    /// looks them all up): calls in flight and pending refunds, oldest first.
    public func callsAwaitingReconciliation(limit: Int = 1000) throws -> [AwaitingCall] {
        try database.read {
            var calls = try database.queryAll(
                """
                SELECT id, in_flight_operation, in_flight_attempt_id, coalesce(outcome_unknown_since, in_flight_started_at)
                FROM intents WHERE in_flight_operation IS NOT NULL ORDER BY in_flight_started_at, id LIMIT ?
                """, [limit]
            ) { row -> AwaitingCall? in
                guard let kind = InFlightOperation.Kind(rawValue: row.string(1)) else { return nil }
                let operation = InFlightOperation(kind: kind, attemptID: row.string(2), amount: 1, startedAt: PaymentRows.date(row.int64(3)))
                return AwaitingCall(intentID: row.string(0), call: operation.call, since: PaymentRows.date(row.int64(3)))
            }.compactMap { $0 }
            calls += try database.queryAll(
                """
                SELECT intent_id, id, coalesce(outcome_unknown_since, created_at) FROM refunds
                WHERE status = 'pending' ORDER BY created_at, id LIMIT ?
                """, [limit]
            ) { row in AwaitingCall(intentID: row.string(0), call: .refund(refundID: row.string(1)), since: PaymentRows.date(row.int64(2))) }
            return Array(calls.sorted { $0.since < $1.since }.prefix(limit))
        }
    }

    // MARK: - Apple Pay token replay guard

    /// Records an Apple Pay token's transactionId; throws `token_replayed` if it was seen
    /// before. Inside `openAttempt` this shares the attempt's transaction.
    public func recordTokenTransaction(_ transactionID: String, intentID: String?, attemptID: String?, at now: Date) throws {
        let normalized = transactionID.lowercased()
        guard (1...128).contains(normalized.utf8.count), normalized.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw PaymentStoreError(reason: .invalidTokenTransactionID, path: database.path)
        }
        try database.write {
            if let firstIntent = try database.queryFirst(
                "SELECT intent_id FROM seen_token_transactions WHERE transaction_id = ?", [normalized], { $0.optionalString(0) })
            {
                throw PaymentStoreError(reason: .tokenReplayed(transactionID: normalized, firstIntentID: firstIntent), path: database.path)
            }
            try database.execute(
                "INSERT INTO seen_token_transactions (transaction_id, intent_id, attempt_id, seen_at) VALUES (?, ?, ?, ?)",
                [normalized, intentID, attemptID, now])
        }
    }

    // MARK: - Inbox and outbox

    /// Records a processor event (webhook) as processed; false when it already was, so the
    /// caller skips it. Call it inside the `database.write` that applies the event.
    public func recordInboxEvent(source: String, eventID: String, intentID: String?, at now: Date) throws -> Bool {
        try database.write {
            try database.execute(
                "INSERT INTO inbox (source, event_id, intent_id, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [source, eventID, intentID, now])
            return database.changes == 1
        }
    }

    /// Outbox messages not delivered yet, oldest first.
    public func undeliveredOutbox(limit: Int = 100) throws -> [OutboxMessage] {
        try database.queryAll(
            "SELECT id, intent_id, intent_version, topic, refund_id, payload, created_at FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT ?",
            [limit]
        ) { row in
            OutboxMessage(
                id: row.int64(0), intentID: row.string(1), intentVersion: row.int64(2), topic: row.string(3),
                refundID: row.optionalString(4), payload: row.string(5), createdAt: PaymentRows.date(row.int64(6)))
        }
    }

    /// Marks outbox messages delivered.
    public func markOutboxDelivered(_ ids: [Int64], at now: Date) throws {
        try database.write {
            for id in ids {
                try database.execute("UPDATE outbox SET delivered_at = ?, delivery_attempts = delivery_attempts + 1 WHERE id = ?", [now, id])
            }
        }
    }
}

/// A timer row that came due.
public struct DueTimer: Sendable, Equatable {
    public let id: Int64
    public let intentID: String
    public let kind: PaymentTimer.Kind
    public let reference: String
    public let dueAt: Date
}

/// What firing a timer did.
public enum TimerFiring: Sendable {
    /// The machine accepted it; run the transition's executor work.
    case applied(PaymentTransition)
    /// The intent had moved on; the timer was deleted and nothing else changed.
    case discarded(PaymentRejection)
    /// Look `call` up at the processor and feed the result back (`reconciliationFound`, …).
    case lookupDue(intentID: String, call: ProcessorCall)
    /// Another process fired or moved it first.
    case alreadyHandled
}

/// A processor call waiting for an answer.
public struct AwaitingCall: Sendable, Equatable {
    public let intentID: String
    public let call: ProcessorCall
    /// Since when: the unknown answer, or the start of the call.
    public let since: Date
}

/// A stored outbox message (a webhook waiting for delivery).
public struct OutboxMessage: Sendable, Equatable {
    public let id: Int64
    public let intentID: String
    public let intentVersion: Int64
    public let topic: String
    public let refundID: String?
    /// `{"topic", "intent", "refund"?}` as JSON text.
    public let payload: String
    public let createdAt: Date
}
