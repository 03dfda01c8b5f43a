import Foundation

/// The payments' book of record: applies each transition of `PaymentStateMachine` through a
/// `PaymentStore`, and reads intents back. This is the one place that turns an accepted
/// event into rows, so every store persists exactly the same history.
///
/// One transition is one write transaction: load the intent (unless the caller holds it),
/// check the expected version, run the machine, check the invariants, update the intent row
/// (guarded by its previous version), write the attempts and refunds that changed, append the
/// event, schedule or cancel timers, append outbox messages. A stale version, a rejected event
/// or a broken invariant throws and writes nothing. Processor calls never happen in here: the
/// caller runs the returned executor work between transactions.
///
/// Because the machine runs on the row as the store's write lock sees it, two processes racing
/// (two refunds of 60 on a captured 100) are serialized: the second sees the first's reserve.
///
/// Every method takes an optional transaction: pass one to join a larger unit of work (opening
/// an attempt together with its idempotency recovery point), or none to run in a write of its own.
package final class PaymentLedger {
    package let store: any PaymentStore
    package let policy: PaymentPolicy

    /// A ledger on `store`; `policy` is handed to every machine it loads.
    package init(store: any PaymentStore, policy: PaymentPolicy = .standard) {
        self.store = store
        self.policy = policy
    }

    /// Runs `body` in `transaction` when given, else in a new write.
    func writing<T>(_ transaction: (any PaymentStoreTransaction)?, _ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        if let transaction { return try body(transaction) }
        return try store.write(body)
    }

    /// Runs `body` in `transaction` when given, else in a new read.
    func reading<T>(_ transaction: (any PaymentStoreTransaction)?, _ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        if let transaction { return try body(transaction) }
        return try store.read(body)
    }

    // MARK: - Creating

    /// Creates the intent `id` (version 1) with its creation event, abandonment timer and
    /// `payment_intent.created` message.
    @discardableResult
    package func create(
        _ request: NewPaymentIntent, id: String, at time: Date, in transaction: (any PaymentStoreTransaction)? = nil
    ) throws -> PaymentIntent {
        let now = PaymentLedger.storedPrecision(time)
        let (machine, actions) = PaymentStateMachine.create(
            id: id, amount: request.amount, captureMethod: request.captureMethod, orderReference: request.orderReference,
            metadata: request.metadata, at: now, policy: policy)
        let violations = PaymentInvariants.violations(of: machine)
        guard violations.isEmpty else {
            throw PaymentStoreError(reason: .invariantViolated(intentID: id, rules: violations))
        }
        try writing(transaction) { transaction in
            try transaction.insertIntent(machine.intent)
            var members: [(String, JSONValue)] = [
                ("amount", .number(request.amount.minorUnits)), ("currency", .string(request.amount.currency.code)),
                ("captureMethod", .string(request.captureMethod.rawValue)), ("orderReference", .optional(request.orderReference)),
            ]
            // Only when there is some, so the history of an intent without metadata reads as before.
            if !request.metadata.isEmpty { members.append(("metadata", request.metadata.json)) }
            let data = jsonObject(members)
            try transaction.appendEvent(StoredPaymentEvent(
                intentID: id, version: 1, type: "intent_created", fromStatus: nil, toStatus: machine.intent.status,
                data: JSONWriter.string(data), occurredAt: now))
            try persist(actions, machine: machine, at: now, in: transaction)
        }
        return machine.intent
    }

    // MARK: - Transitions

    /// Applies `event` to the intent `intentID` in one transaction and returns what changed
    /// and the executor's work.
    ///
    /// `expectedVersion`: the version the caller's decision was based on (an operator looking
    /// at the intent, a merchant's capture): a different version throws `versionConflict`.
    /// Pass nil for events whose validity the machine checks by itself on the current row —
    /// processor answers, which name the call they answer, and timers.
    ///
    /// `known`: the machine as the caller last saw it (the previous transition's). When it is
    /// still current the intent is not read again; when another writer moved the intent on
    /// meanwhile, the row-version guard notices and the event is applied to the fresh row.
    ///
    /// `readingDueTimers`: when the transition leaves no executor work, also read the intent's
    /// timers due at `now` in the same transaction (`PaymentTransition.dueTimers`), so a caller
    /// that fires them after its last step needs no read transaction of its own.
    @discardableResult
    package func apply(
        _ event: PaymentEvent, to intentID: String, expectedVersion: Int64?, at now: Date,
        known: PaymentStateMachine? = nil, readingDueTimers: Bool = false, in transaction: (any PaymentStoreTransaction)? = nil
    ) throws -> PaymentTransition {
        try writing(transaction) { transaction in
            let step = { (before: PaymentStateMachine) in
                try self.applyInTransaction(
                    event, to: before, expectedVersion: expectedVersion, at: now, readingDueTimers: readingDueTimers, in: transaction)
            }
            if let known, known.intent.id == intentID, let transition = try step(known) {
                return transition
            }
            let current = try requireMachine(intentID, in: transaction)
            guard let transition = try step(current) else {
                // Impossible inside one write: the row cannot move between our read and update.
                throw PaymentStoreError(reason: .versionConflict(intentID: intentID, expected: current.intent.version, actual: -1))
            }
            return transition
        }
    }

    /// Opens an attempt and, for an Apple Pay token, records its transactionId in the same
    /// transaction: a replayed token is refused (`token_replayed`) and nothing is written.
    @discardableResult
    package func openAttempt(
        _ opening: AttemptOpening, intentID: String, tokenTransactionID: String?, expectedVersion: Int64?, at now: Date,
        known: PaymentStateMachine? = nil, in transaction: (any PaymentStoreTransaction)? = nil
    ) throws -> PaymentTransition {
        try writing(transaction) { transaction in
            if let tokenTransactionID {
                try recordTokenTransaction(tokenTransactionID, intentID: intentID, attemptID: opening.attemptID, at: now, in: transaction)
            }
            return try apply(
                .attemptOpened(opening), to: intentID, expectedVersion: expectedVersion, at: now, known: known, in: transaction)
        }
    }

    /// The transition of `before` by `event`, written; nil when the stored row is no longer at
    /// `before`'s version (the caller's copy was stale: nothing was written).
    private func applyInTransaction(
        _ event: PaymentEvent, to before: PaymentStateMachine, expectedVersion: Int64?, at time: Date,
        readingDueTimers: Bool, in transaction: any PaymentStoreTransaction
    ) throws -> PaymentTransition? {
        let now = PaymentLedger.storedPrecision(time)
        let intentID = before.intent.id
        if let expectedVersion, expectedVersion != before.intent.version {
            // Decided on the stored row only: a stale copy says nothing about the version.
            guard let stored = try transaction.intent(intentID), stored.version == before.intent.version else { return nil }
            throw PaymentStoreError(
                reason: .versionConflict(intentID: intentID, expected: expectedVersion, actual: before.intent.version))
        }
        var machine = before
        let actions: [PaymentAction]
        do {
            actions = try machine.apply(event, at: now)
        } catch {
            // A rejection decided on a stale copy is no decision: reread and decide again.
            guard let stored = try transaction.intent(intentID), stored.version == before.intent.version else { return nil }
            throw error
        }
        let violations = PaymentInvariants.violations(from: before, to: machine)
        guard violations.isEmpty else {
            throw PaymentStoreError(reason: .invariantViolated(intentID: intentID, rules: violations))
        }
        guard try transaction.updateIntent(machine.intent, previousVersion: before.intent.version) else { return nil }
        for attempt in machine.attempts where !before.attempts.contains(attempt) {
            try transaction.saveAttempt(attempt)
        }
        for refund in machine.refunds where !before.refunds.contains(refund) {
            try transaction.saveRefund(refund)
        }
        try transaction.appendEvent(StoredPaymentEvent(
            intentID: intentID, version: machine.intent.version, type: event.name, fromStatus: before.intent.status,
            toStatus: machine.intent.status, data: JSONWriter.string(event.data), occurredAt: now))
        try persist(actions, machine: machine, at: now, in: transaction)
        let due = readingDueTimers && !actions.contains(where: \.isExecutorWork)
            ? try transaction.dueTimers(at: now, limit: PaymentLedger.dueTimersPerIntent, intentID: intentID) : nil
        return PaymentTransition(event: event, previousStatus: before.intent.status, machine: machine, actions: actions, dueTimers: due)
    }

    /// Writes the timers and outbox messages among `actions`.
    private func persist(
        _ actions: [PaymentAction], machine: PaymentStateMachine, at now: Date, in transaction: any PaymentStoreTransaction
    ) throws {
        let intent = machine.intent
        for action in actions {
            switch action {
            case .scheduleTimer(let timer):
                try transaction.scheduleTimer(timer, intentID: intent.id, at: now)
            case .cancelTimer(let kind, let reference):
                try transaction.cancelTimer(kind, reference: reference, intentID: intent.id)
            case .emitOutbox(let topic, let refundID):
                let refund = refundID.flatMap { refundID in machine.refunds.first { $0.id == refundID } }
                let payload = OutboxPayload(topic: topic.rawValue, intent: intent, refund: refund)
                try transaction.appendOutbox(NewOutboxMessage(
                    intentID: intent.id, intentVersion: intent.version, topic: topic.rawValue, refundID: refundID,
                    payload: payload.storedText, createdAt: now))
            case .callProcessorAuthorize, .callProcessorCompleteChallenge, .callProcessorCapture, .voidAuthorization,
                .callProcessorRefund, .answerSheet:
                continue  // the executor's, after the commit
            }
        }
    }

    /// `time` cut to the milliseconds the stores keep, so the machine a transition returns
    /// equals the one loaded back.
    static func storedPrecision(_ time: Date) -> Date {
        Timestamp.date(epochMilliseconds: Timestamp.epochMilliseconds(time))
    }

    // MARK: - Loading

    /// The intent with its attempts and refunds, ready for the next event; nil when unknown.
    package func loadMachine(_ intentID: String, in transaction: (any PaymentStoreTransaction)? = nil) throws -> PaymentStateMachine? {
        try reading(transaction) { transaction in
            guard let intent = try transaction.intent(intentID) else { return nil }
            return PaymentStateMachine(
                intent: intent, attempts: try transaction.attempts(ofIntent: intentID),
                refunds: try transaction.refunds(ofIntent: intentID), policy: policy)
        }
    }

    /// `loadMachine`, throwing `payment_intent_not_found` when unknown.
    package func requireMachine(_ intentID: String, in transaction: (any PaymentStoreTransaction)? = nil) throws -> PaymentStateMachine {
        guard let machine = try loadMachine(intentID, in: transaction) else {
            throw PaymentStoreError(reason: .intentNotFound(intentID))
        }
        return machine
    }

    /// The intent `id`, or nil.
    package func intent(_ id: String) throws -> PaymentIntent? {
        try store.read { try $0.intent(id) }
    }
}

/// What one accepted event did: the intent before and after, and the actions. The timers and
/// outbox messages are already written; `executorWork` is what the caller must now run.
package struct PaymentTransition: Sendable {
    package let event: PaymentEvent
    package let previousStatus: PaymentStatus
    /// The intent, attempts and refunds after the event (feed the next event to a copy).
    package let machine: PaymentStateMachine
    package let actions: [PaymentAction]
    /// The intent's timers due at the transition's time, read in its transaction; nil unless
    /// asked for (`apply(readingDueTimers:)`) and the transition left no executor work.
    package let dueTimers: [DueTimer]?

    init(event: PaymentEvent, previousStatus: PaymentStatus, machine: PaymentStateMachine, actions: [PaymentAction], dueTimers: [DueTimer]?) {
        self.event = event
        self.previousStatus = previousStatus
        self.machine = machine
        self.actions = actions
        self.dueTimers = dueTimers
    }

    /// The intent after the event.
    package var intent: PaymentIntent { machine.intent }

    /// Processor calls and sheet answers to run now, in order.
    package var executorWork: [PaymentAction] { actions.filter(\.isExecutorWork) }
}
