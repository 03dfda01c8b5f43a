import Foundation

/// Stores payment intents and applies state-machine transitions, each in ONE write transaction
/// (`BEGIN IMMEDIATE`): load the intent, check the expected version, run the machine, append
/// the event with the next version, update the intent row, write attempts, refunds, timers and
/// outbox rows. A stale version, a rejected event or a broken invariant throws and writes
/// nothing. Processor calls never happen in here: the caller runs the returned executor work
/// between transactions.
///
/// Because the machine runs on the row as it is inside the write lock, two processes racing
/// (two refunds of 60 on a captured 100) are serialized: the second sees the first's reserve.
///
/// Like its `Database`, a repository has one owner and is not `Sendable`.
public final class PaymentRepository {
    public let database: Database
    public let policy: PaymentPolicy

    /// A repository on a migrated payments database; `policy` is handed to every machine it loads.
    public init(database: Database, policy: PaymentPolicy = .standard) {
        self.database = database
        self.policy = policy
    }

    // MARK: - Creating

    /// Creates the intent `id` (version 1) with its creation event, abandonment timer and
    /// `payment_intent.created` message.
    @discardableResult
    public func create(_ request: NewPaymentIntent, id: String, at time: Date) throws -> PaymentIntent {
        let now = PaymentRepository.storedPrecision(time)
        let (machine, actions) = PaymentStateMachine.create(
            id: id, amount: request.amount, captureMethod: request.captureMethod, orderReference: request.orderReference,
            at: now, policy: policy)
        let violations = PaymentInvariants.violations(of: machine)
        guard violations.isEmpty else {
            throw PaymentStoreError(reason: .invariantViolated(intentID: id, rules: violations), path: database.path)
        }
        try database.write {
            try PaymentRows.insertIntent(machine.intent, into: database)
            let data = jsonObject([
                ("amount", .number(request.amount.minorUnits)), ("currency", .string(request.amount.currency.code)),
                ("captureMethod", .string(request.captureMethod.rawValue)), ("orderReference", .optional(request.orderReference)),
            ])
            try insertEvent(intentID: id, version: 1, type: "intent_created", from: nil, to: machine.intent.status, data: data, at: now)
            try persist(actions, machine: machine, at: now)
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
    @discardableResult
    public func apply(_ event: PaymentEvent, to intentID: String, expectedVersion: Int64?, at now: Date) throws -> PaymentTransition {
        try database.write {
            try applyInTransaction(event, to: intentID, expectedVersion: expectedVersion, at: now)
        }
    }

    /// Opens an attempt and, for an Apple Pay token, records its transactionId in the same
    /// transaction: a replayed token is refused (`token_replayed`) and nothing is written.
    @discardableResult
    public func openAttempt(
        _ opening: AttemptOpening, intentID: String, tokenTransactionID: String?, expectedVersion: Int64?, at now: Date
    ) throws -> PaymentTransition {
        try database.write {
            if let tokenTransactionID {
                try recordTokenTransaction(tokenTransactionID, intentID: intentID, attemptID: opening.attemptID, at: now)
            }
            return try applyInTransaction(.attemptOpened(opening), to: intentID, expectedVersion: expectedVersion, at: now)
        }
    }

    private func applyInTransaction(_ event: PaymentEvent, to intentID: String, expectedVersion: Int64?, at time: Date) throws -> PaymentTransition {
        let now = PaymentRepository.storedPrecision(time)
        guard var machine = try loadMachine(intentID) else {
            throw PaymentStoreError(reason: .intentNotFound(intentID), path: database.path)
        }
        let before = machine
        if let expectedVersion, expectedVersion != before.intent.version {
            throw PaymentStoreError(
                reason: .versionConflict(intentID: intentID, expected: expectedVersion, actual: before.intent.version), path: database.path)
        }
        let actions = try machine.apply(event, at: now)
        let violations = PaymentInvariants.violations(from: before, to: machine)
        guard violations.isEmpty else {
            throw PaymentStoreError(reason: .invariantViolated(intentID: intentID, rules: violations), path: database.path)
        }
        guard try PaymentRows.updateIntent(machine.intent, previousVersion: before.intent.version, in: database) else {
            // Only possible for a writer that bypasses `write` (the lock makes it impossible here).
            let actual = try currentVersion(intentID) ?? -1
            throw PaymentStoreError(
                reason: .versionConflict(intentID: intentID, expected: before.intent.version, actual: actual), path: database.path)
        }
        for attempt in machine.attempts where !before.attempts.contains(attempt) {
            try PaymentRows.upsertAttempt(attempt, in: database)
        }
        for refund in machine.refunds where !before.refunds.contains(refund) {
            try PaymentRows.upsertRefund(refund, in: database)
        }
        try insertEvent(
            intentID: intentID, version: machine.intent.version, type: event.name, from: before.intent.status,
            to: machine.intent.status, data: event.data, at: now)
        try persist(actions, machine: machine, at: now)
        return PaymentTransition(event: event, previousStatus: before.intent.status, machine: machine, actions: actions)
    }

    /// Writes the timers and outbox messages among `actions`.
    private func persist(_ actions: [PaymentAction], machine: PaymentStateMachine, at now: Date) throws {
        let intent = machine.intent
        for action in actions {
            switch action {
            case .scheduleTimer(let timer):
                try database.execute(
                    """
                    INSERT INTO timers (intent_id, kind, reference, due_at, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (intent_id, kind, reference) DO UPDATE SET due_at = excluded.due_at
                    """,
                    [intent.id, timer.kind.rawValue, timer.reference, timer.dueAt, now])
            case .cancelTimer(let kind, let reference):
                try database.execute(
                    "DELETE FROM timers WHERE intent_id = ? AND kind = ? AND reference = ?", [intent.id, kind.rawValue, reference])
            case .emitOutbox(let topic, let refundID):
                var payload: [(String, JSONValue)] = [("topic", .string(topic.rawValue)), ("intent", intent.json)]
                if let refundID, let refund = machine.refunds.first(where: { $0.id == refundID }) {
                    payload.append(("refund", refund.json))
                }
                try database.execute(
                    "INSERT INTO outbox (intent_id, intent_version, topic, refund_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [intent.id, intent.version, topic.rawValue, refundID, JSONWriter.string(jsonObject(payload)), now])
            case .callProcessorAuthorize, .callProcessorCompleteChallenge, .callProcessorCapture, .voidAuthorization,
                .callProcessorRefund, .answerSheet:
                continue  // the executor's, after the commit
            }
        }
    }

    private func insertEvent(
        intentID: String, version: Int64, type: String, from: PaymentStatus?, to: PaymentStatus, data: JSONValue, at now: Date
    ) throws {
        try database.execute(
            "INSERT INTO events (intent_id, version, type, from_status, to_status, data, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [intentID, version, type, from?.rawValue, to.rawValue, JSONWriter.string(data), now])
    }

    /// `time` cut to the milliseconds the database keeps, so the machine a transition returns
    /// equals the one loaded back.
    static func storedPrecision(_ time: Date) -> Date {
        Timestamp.date(epochMilliseconds: Timestamp.epochMilliseconds(time))
    }

    // MARK: - Loading

    /// The intent with its attempts and refunds, ready for the next event; nil when unknown.
    public func loadMachine(_ intentID: String) throws -> PaymentStateMachine? {
        try database.read {
            guard let intent = try intent(intentID) else { return nil }
            let path = database.path
            let attempts = try database.queryAll(
                "SELECT \(PaymentRows.attemptColumns) FROM attempts WHERE intent_id = ? ORDER BY sequence", [intentID]
            ) { row throws(PaymentStoreError) in try PaymentRows.attempt(row, path: path) }
            let refunds = try database.queryAll(
                "SELECT \(PaymentRows.refundColumns) FROM refunds WHERE intent_id = ? ORDER BY created_at, rowid", [intentID]
            ) { row throws(PaymentStoreError) in try PaymentRows.refund(row, path: path) }
            return PaymentStateMachine(intent: intent, attempts: attempts, refunds: refunds, policy: policy)
        }
    }

    /// The intent `id`, or nil.
    public func intent(_ id: String) throws -> PaymentIntent? {
        let path = database.path
        return try database.queryFirst("SELECT \(PaymentRows.intentColumns) FROM intents WHERE id = ?", [id]) {
            row throws(PaymentStoreError) in try PaymentRows.intent(row, path: path)
        }
    }

    private func currentVersion(_ intentID: String) throws -> Int64? {
        try database.queryFirst("SELECT version FROM intents WHERE id = ?", [intentID]) { $0.int64(0) }
    }
}

/// What one accepted event did: the intent before and after, and the actions. The timers and
/// outbox messages are already written; `executorWork` is what the caller must now run.
public struct PaymentTransition: Sendable {
    public let event: PaymentEvent
    public let previousStatus: PaymentStatus
    /// The intent, attempts and refunds after the event (feed the next event to a copy).
    public let machine: PaymentStateMachine
    public let actions: [PaymentAction]

    /// The intent after the event.
    public var intent: PaymentIntent { machine.intent }

    /// Processor calls and sheet answers to run now, in order.
    public var executorWork: [PaymentAction] { actions.filter(\.isExecutorWork) }
}
