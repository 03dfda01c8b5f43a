import Foundation

// Timers, reconciliation work, the token replay guard, the inbox and the outbox.
extension PaymentLedger {
    // MARK: - Timers

    /// At most this many of one intent's due timers are fired after one operation (it has a
    /// handful at any time).
    static let dueTimersPerIntent = 100

    /// Timers due at `now`, earliest first; only those of intent `intentID` when given.
    package func dueTimers(at now: Date, limit: Int = 100, intentID: String? = nil) throws -> [DueTimer] {
        try store.read { try $0.dueTimers(at: now, limit: limit, intentID: intentID) }
    }

    /// Fires a due timer in one transaction. State-machine timers are consumed: the timer row
    /// is deleted and `timerFired` applied; when the machine refuses (the intent moved on), the
    /// deletion alone is committed and the rejection returned. A reconciliation timer is not
    /// consumed here: it returns the call to look up, and the lookup's result (fed back with
    /// `apply`) moves or deletes it.
    package func fireTimer(_ timer: DueTimer, at now: Date) throws -> TimerFiring {
        try store.write { transaction in
            guard try transaction.isStillDue(timer, at: now) else { return .alreadyHandled }
            if timer.kind == .reconciliation {
                if let call = try awaitingCall(intentID: timer.intentID, reference: timer.reference, in: transaction) {
                    return .lookupDue(intentID: timer.intentID, call: call)
                }
                try transaction.deleteTimer(id: timer.id)
                return .alreadyHandled
            }
            try transaction.deleteTimer(id: timer.id)
            do {
                let transition = try apply(
                    .timerFired(timer.kind, reference: timer.reference), to: timer.intentID, expectedVersion: nil, at: now,
                    in: transaction)
                return .applied(transition)
            } catch let rejection as PaymentRejection {
                return .discarded(rejection)
            }
        }
    }

    /// The processor call of intent `intentID` named by `reference` that still waits for an
    /// answer: the call in flight, or a pending refund.
    package func awaitingCall(
        intentID: String, reference: String, in transaction: (any PaymentStoreTransaction)? = nil
    ) throws -> ProcessorCall? {
        guard let machine = try loadMachine(intentID, in: transaction) else { return nil }
        return Self.awaitingCall(of: machine, reference: reference)
    }

    /// The call of `machine` named by `reference` that still waits for an answer.
    package static func awaitingCall(of machine: PaymentStateMachine, reference: String) -> ProcessorCall? {
        if let operation = machine.intent.inFlight, operation.attemptID == reference { return operation.call }
        if machine.refunds.contains(where: { $0.id == reference && $0.status == .pending }) {
            return .refund(refundID: reference)
        }
        return nil
    }

    /// Every call waiting for a processor answer, whatever its schedule (`reconcile` looks
    /// them all up): calls in flight and pending refunds, oldest first.
    package func callsAwaitingReconciliation(limit: Int = 1000) throws -> [AwaitingCall] {
        try store.read { try $0.callsAwaitingReconciliation(limit: limit) }
    }

    // MARK: - Apple Pay token replay guard

    /// Records an Apple Pay token's transactionId; throws `token_replayed` if it was seen
    /// before. Inside `openAttempt` this shares the attempt's transaction.
    package func recordTokenTransaction(
        _ transactionID: String, intentID: String?, attemptID: String?, at now: Date,
        in transaction: (any PaymentStoreTransaction)? = nil
    ) throws {
        let normalized = transactionID.lowercased()
        guard (1...128).contains(normalized.utf8.count), normalized.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw PaymentStoreError(reason: .invalidTokenTransactionID)
        }
        try writing(transaction) { transaction in
            if let firstIntent = try transaction.tokenTransaction(normalized) {
                throw PaymentStoreError(reason: .tokenReplayed(transactionID: normalized, firstIntentID: firstIntent))
            }
            try transaction.insertTokenTransaction(normalized, intentID: intentID, attemptID: attemptID, at: now)
        }
    }

    // MARK: - Inbox and outbox

    /// Records a processor event (webhook) as processed; false when it already was, so the
    /// caller skips it. Pass the transaction that applies the event.
    package func recordInboxEvent(
        source: String, eventID: String, intentID: String?, at now: Date, in transaction: (any PaymentStoreTransaction)? = nil
    ) throws -> Bool {
        try writing(transaction) { try $0.recordInboxEvent(source: source, eventID: eventID, intentID: intentID, at: now) }
    }

    /// Outbox messages not delivered yet, oldest first.
    package func undeliveredOutbox(limit: Int = 100) throws -> [OutboxMessage] {
        try store.read { try $0.undeliveredOutbox(limit: limit) }
    }

    /// Marks outbox messages delivered.
    package func markOutboxDelivered(_ ids: [Int64], at now: Date) throws {
        try store.write { try $0.markOutboxDelivered(ids, at: now) }
    }
}

/// A timer row that came due.
public struct DueTimer: Sendable, Equatable {
    public let id: Int64
    public let intentID: String
    public let kind: PaymentTimer.Kind
    public let reference: String
    public let dueAt: Date

    public init(id: Int64, intentID: String, kind: PaymentTimer.Kind, reference: String, dueAt: Date) {
        self.id = id
        self.intentID = intentID
        self.kind = kind
        self.reference = reference
        self.dueAt = dueAt
    }
}

/// What firing a timer did.
package enum TimerFiring: Sendable {
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
    /// Lookups made so far that did not conclude it.
    public let lookups: Int

    public init(intentID: String, call: ProcessorCall, since: Date, lookups: Int = 0) {
        self.intentID = intentID
        self.call = call
        self.since = since
        self.lookups = lookups
    }
}

/// A stored outbox message (a webhook waiting for delivery).
public struct OutboxMessage: Sendable, Equatable {
    public let id: Int64
    public let intentID: String
    public let intentVersion: Int64
    public let topic: String
    public let refundID: String?
    /// The topic, intent and refund in the library's stored format (`OutboxPayload`).
    public let payload: String
    public let createdAt: Date

    public init(id: Int64, intentID: String, intentVersion: Int64, topic: String, refundID: String?, payload: String, createdAt: Date) {
        self.id = id
        self.intentID = intentID
        self.intentVersion = intentVersion
        self.topic = topic
        self.refundID = refundID
        self.payload = payload
        self.createdAt = createdAt
    }
}
