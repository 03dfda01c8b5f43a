import Foundation

/// The storage boundary of the payments database: every read and write of intents, their
/// history, timers, the outbox and inbox, idempotency keys and the token replay guard goes
/// through one of these, and nothing above it knows which database holds them.
///
/// It is a *transaction scope*, like GRDB's `DatabaseWriter`: callers write
/// `try store.write { tx in … }` and everything done with `tx` commits together or not at all.
/// The store decides nothing: the transition logic (state machine, invariants, events,
/// timers, outbox contents) is `PaymentTransitions`, written once above every store.
///
/// The same database keeps the checkouts (`CheckoutStore`), so one store, one connection,
/// serves an owner's payments and its checkouts alike: the checkout desk, which runs on the
/// payment service's thread, uses the service's store (`PaymentService.withCheckoutStore`).
///
/// Adopters: `SQLitePaymentStore` (the embedded default) and the PostgreSQL store. Both pass
/// the same conformance suite. Rules every adopter keeps:
/// - `write` is serializable for the rows it touches: two writers racing on one intent see
///   each other's effects (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: `SELECT … FOR UPDATE`).
/// - On a retryable conflict (SQLite busy, PostgreSQL `40001`/`40P01`) the store rolls back
///   and runs `body` again, a bounded number of times; `body` must therefore only touch the
///   transaction. When the retries are spent it throws an error whose
///   `isRetryableConflict` is true.
/// - Money, versions and times are 64-bit integers (times as epoch milliseconds).
/// - Errors carry the store's own code and statement, never bound values (card data never
///   reaches a log) and never a file path (the front end knows where the store is).
public protocol PaymentStore: CheckoutStore {
    /// Runs `body` in one write transaction; commits when it returns, rolls back when it
    /// throws. A write started inside another transaction of the same store is a programmer
    /// error that stops the process (joined, its commit would not be one): code that runs
    /// inside a transaction takes the transaction as a parameter.
    func write<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T

    /// `write`, except that a wait for the commit to reach the disk suspends the caller rather
    /// than blocking its thread, so the owner's other work — and the commits it makes
    /// meanwhile, which then share one flush — goes on. Returns only once the commit is
    /// durable, as `write` does. The default is `write` (a store whose COMMIT is durable when
    /// it returns, such as PostgreSQL's, has nothing to wait for). It runs on the caller's
    /// executor: the store never leaves its owner.
    nonisolated(nonsending) func writeAwaitingFlush<T>(_ body: (any PaymentStoreTransaction) throws -> T) async throws -> T

    /// Runs `body` on one consistent snapshot; `body` must not write. Inside a `write` it joins
    /// that transaction.
    func read<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T
}

/// An error a store throws when its transaction lost a race it may win on a retry.
public protocol RetryableStoreError: Error {
    /// True for a serialization failure, a deadlock or a lock wait that ran out.
    var isRetryableConflict: Bool { get }
}

/// What can be done inside one transaction of a `PaymentStore`. Only valid inside the
/// `write`/`read` call that handed it out.
public protocol PaymentStoreTransaction {
    // MARK: Intents, attempts, refunds, history

    /// The intent `id`, or nil.
    func intent(_ id: String) throws -> PaymentIntent?
    /// The intent's attempts, oldest first.
    func attempts(ofIntent intentID: String) throws -> [Attempt]
    /// The intent's refunds, oldest first.
    func refunds(ofIntent intentID: String) throws -> [Refund]
    /// Inserts a new intent (version 1).
    func insertIntent(_ intent: PaymentIntent) throws
    /// Writes `intent` over the row still at `previousVersion`; false when that row moved on.
    func updateIntent(_ intent: PaymentIntent, previousVersion: Int64) throws -> Bool
    /// Inserts or updates an attempt.
    func saveAttempt(_ attempt: Attempt) throws
    /// Inserts or updates a refund.
    func saveRefund(_ refund: Refund) throws
    /// Appends one event of an intent's history; `(intentID, version)` is unique.
    func appendEvent(_ event: StoredPaymentEvent) throws
    /// The intent's history, by version.
    func events(ofIntent intentID: String) throws -> [PaymentEventRecord]
    /// Calls `body` with each intent, newest first (optionally only those in `status`), at most
    /// `limit`, streaming: memory does not grow with the number of intents.
    func forEachIntent(status: PaymentStatus?, limit: Int?, _ body: (PaymentIntent) throws -> Void) throws
    /// One page of intents, newest first by `(createdAt, id)`: those strictly older than
    /// `page`'s cursor (`.olderThan`), strictly newer (`.newerThan`), or the newest (`.first`),
    /// optionally only those in `status` and only those whose metadata holds every pair of
    /// `metadata`; at most `limit`. A keyset query, so a page costs the same wherever it is and
    /// rows created meanwhile never shift it. (The metadata filter reads the intents in page
    /// order and keeps the matching ones: it has no index of its own.)
    func intents(status: PaymentStatus?, metadata: [String: String], page: IntentPage, limit: Int) throws -> [PaymentIntent]
    /// The refund `id`, or nil.
    func refund(_ id: String) throws -> Refund?
    /// Every intent id, oldest first (audits and the history replay).
    func allIntentIDs() throws -> [String]
    /// How many events the history holds, over all intents.
    func eventCount() throws -> Int
    /// The store's own consistency checks (SQLite: `integrity_check`, `foreign_key_check`);
    /// empty when all is well.
    func integrityFindings() throws -> [String]

    // MARK: Timers

    /// Schedules (or moves) the intent's timer `timer.kind`/`timer.reference`.
    func scheduleTimer(_ timer: PaymentTimer, intentID: String, at now: Date) throws
    /// Deletes the intent's timer `kind`/`reference`, if any.
    func cancelTimer(_ kind: PaymentTimer.Kind, reference: String, intentID: String) throws
    /// Timers due at `now`, earliest first; only those of `intentID` when given.
    func dueTimers(at now: Date, limit: Int, intentID: String?) throws -> [DueTimer]
    /// True when `timer` is still scheduled, unchanged, and due at `now`.
    func isStillDue(_ timer: DueTimer, at now: Date) throws -> Bool
    /// Deletes the timer row `id`.
    func deleteTimer(id: Int64) throws
    /// The intent's timers, soonest first (for people and tests).
    func timers(ofIntent intentID: String) throws -> [DueTimer]

    // MARK: Reconciliation

    /// Every call waiting for a processor answer: calls in flight and pending refunds, oldest first.
    func callsAwaitingReconciliation(limit: Int) throws -> [AwaitingCall]

    // MARK: Outbox and inbox

    /// Appends a message for the relay.
    func appendOutbox(_ message: NewOutboxMessage) throws
    /// Every message of the intent, in the order appended.
    func outbox(ofIntent intentID: String) throws -> [OutboxMessage]
    /// Messages not delivered yet, oldest first.
    func undeliveredOutbox(limit: Int) throws -> [OutboxMessage]
    /// Marks messages delivered.
    func markOutboxDelivered(_ ids: [Int64], at now: Date) throws
    /// Records a processor event as processed; false when it already was.
    func recordInboxEvent(source: String, eventID: String, intentID: String?, at now: Date) throws -> Bool

    // MARK: Apple Pay token replay guard

    /// The intent that first used the (normalised) transaction id; `.some(nil)` when it was
    /// recorded without one; nil when never seen.
    func tokenTransaction(_ transactionID: String) throws -> String??
    /// Records a (normalised) transaction id as seen.
    func insertTokenTransaction(_ transactionID: String, intentID: String?, attemptID: String?, at now: Date) throws

    // MARK: Idempotency keys (the rules are `IdempotencyStore`'s; these are its rows)

    /// The row of `(key, scope)`, or nil.
    func idempotencyRecord(key: String, scope: String) throws -> IdempotencyRecord?
    /// Inserts a row (a claim in progress, or a completed result).
    func insertIdempotencyRecord(_ record: IdempotencyRecord) throws
    /// Stores the result of the claim `(key, scope)` with `requestHash` that is in progress.
    func completeIdempotencyClaim(key: String, scope: String, requestHash: String, result: StoredIdempotentResult, at now: Date) throws
    /// Renews the lease of a claim taken over from a crashed run.
    func relockIdempotencyClaim(key: String, scope: String, at now: Date) throws
    /// Records the resource a claim in progress created (its recovery point).
    func attachIdempotencyResource(_ resourceID: String, key: String, scope: String) throws
    /// Deletes the row of `(key, scope)`; with `onlyInProgress`, only a claim still in progress.
    func deleteIdempotencyRecord(key: String, scope: String, onlyInProgress: Bool) throws
    /// Deletes rows first used at or before `cutoff`; returns how many.
    func purgeIdempotencyRecords(createdAtOrBefore cutoff: Date) throws -> Int
}

extension PaymentStore {
    /// A store whose `write` is durable when it returns waits for nothing more.
    public nonisolated(nonsending) func writeAwaitingFlush<T>(_ body: (any PaymentStoreTransaction) throws -> T) async throws -> T {
        try write(body)
    }
}

extension PaymentStoreTransaction {
    /// One page of intents without a metadata filter.
    public func intents(status: PaymentStatus?, page: IntentPage, limit: Int) throws -> [PaymentIntent] {
        try intents(status: status, metadata: [:], page: page, limit: limit)
    }
}

/// Where a page of intents starts, as a keyset cursor on `(createdAt, id)`.
public enum IntentPage: Sendable, Equatable {
    /// The newest intents.
    case first
    /// Intents after the cursor in newest-first order (older than it).
    case olderThan(createdAt: Date, id: String)
    /// Intents before the cursor in newest-first order (newer than it): the page just before it.
    case newerThan(createdAt: Date, id: String)
}

/// One event of an intent's history, as appended.
public struct StoredPaymentEvent: Sendable, Equatable {
    public let intentID: String
    public let version: Int64
    /// `intent_created`, `attempt_opened`, `processor_answered`, …
    public let type: String
    public let fromStatus: PaymentStatus?
    public let toStatus: PaymentStatus
    /// The event's details as JSON text.
    public let data: String
    public let occurredAt: Date

    public init(
        intentID: String, version: Int64, type: String, fromStatus: PaymentStatus?, toStatus: PaymentStatus,
        data: String, occurredAt: Date
    ) {
        self.intentID = intentID
        self.version = version
        self.type = type
        self.fromStatus = fromStatus
        self.toStatus = toStatus
        self.data = data
        self.occurredAt = occurredAt
    }
}

/// An outbox message to append: one per change a merchant hears about.
public struct NewOutboxMessage: Sendable, Equatable {
    public let intentID: String
    public let intentVersion: Int64
    public let topic: String
    public let refundID: String?
    /// The topic, intent and refund in the library's stored format (`OutboxPayload`).
    public let payload: String
    public let createdAt: Date

    public init(intentID: String, intentVersion: Int64, topic: String, refundID: String?, payload: String, createdAt: Date) {
        self.intentID = intentID
        self.intentVersion = intentVersion
        self.topic = topic
        self.refundID = refundID
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// The row of one idempotency key.
public struct IdempotencyRecord: Sendable, Equatable {
    public enum State: String, Sendable {
        case inProgress = "in_progress"
        case completed
    }

    public let key: String
    public let scope: String
    /// SHA-256 of the request's parameters.
    public let requestHash: String
    public let state: State
    /// The stored result, once completed.
    public let result: StoredIdempotentResult?
    public let createdAt: Date
    /// When the claim in progress was taken (its lease starts there); the epoch once its run
    /// gave it up for the next request to take over at once (`IdempotencyStore.giveUp`).
    public let lockedAt: Date?
    /// What the claimed operation created (an attempt or refund id), for recovery.
    public let resourceID: String?

    public init(
        key: String, scope: String, requestHash: String, state: State, result: StoredIdempotentResult?, createdAt: Date,
        lockedAt: Date?, resourceID: String?
    ) {
        self.key = key
        self.scope = scope
        self.requestHash = requestHash
        self.state = state
        self.result = result
        self.createdAt = createdAt
        self.lockedAt = lockedAt
        self.resourceID = resourceID
    }
}

/// A result as an idempotency row keeps it: text, so any store holds it the same way.
public struct StoredIdempotentResult: Sendable, Equatable {
    /// True for `.succeeded`.
    public let succeeded: Bool
    /// The body as JSON text.
    public let response: String?
    public let errorCode: String?
    /// Redacted: never a card number.
    public let errorMessage: String?

    public init(succeeded: Bool, response: String?, errorCode: String?, errorMessage: String?) {
        self.succeeded = succeeded
        self.response = response
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}
