import Foundation
import PayPanelHTTP

/// The entry point of a payment: what a front end (a CLI command, an HTTP route, the checkout
/// desk) calls to create an intent, authorize it, capture, cancel, refund, reconcile or resolve.
///
/// Every step is a transition committed by `PaymentLedger` through the `PaymentStore` (one write);
/// processor calls happen between those transactions, never inside one. The service opens the
/// step and hands its work to the jobs it is made of, all on its own thread:
/// - `PaymentExecutor` runs what the machine asks for: processor calls, each answer fed back
///   as an event, until there is no more work, then the timers that came due;
/// - `PaymentReconciler` finishes what a timeout, a 500 or a crash left open (lookups, due
///   timers, a failed run of an idempotency key);
/// - `OperatorResolver` takes an intent out of requires_merchant_action;
/// - `ProcessorWebhookIntake` applies what the processor says later, in a webhook, as the
///   lookup's answer it is.
/// None of them decides anything itself: guards, timers, reversals and the Apple Pay sheet's
/// answer all come from the machine, so a crash between two steps leaves a state that
/// `reconcile()` can finish from the database and the processor's ledger alone.
///
/// Card data lives only in memory, for the duration of the call that needs it. After a crash
/// an authorization is therefore never re-sent: it is looked up by its attempt id instead,
/// which is what makes "never authorize the same attempt twice" hold.
public actor PaymentService {
    /// Its own thread: the synchronous store calls below block it, never the cooperative pool
    /// (`ActorThread`).
    private let thread = ActorThread(name: PaymentService.threadName)
    /// Its thread's name, as `top -H` and /proc show it (`bench serve` reads its CPU time).
    package static let threadName = "payment-service"
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    /// Writes transitions and runs their work; the store, the ledger, the keys and the clock
    /// below are its.
    let executor: PaymentExecutor
    let reconciler: PaymentReconciler
    let resolver: OperatorResolver
    var store: any PaymentStore { executor.store }
    var ledger: PaymentLedger { executor.ledger }
    var idempotency: IdempotencyStore { executor.idempotency }
    var clock: any WallClock { executor.clock }
    var random: PaymentIDGenerator
    /// The processor timeout and state-machine policy.
    public nonisolated let configuration: PaymentServiceConfiguration

    /// A service on `store`, which it owns from now on (the actor serializes every use of it).
    /// `randomSeed` makes ids reproducible in tests.
    public init(
        store: sending any PaymentStore, processor: any PaymentProcessor, clock: any WallClock = SystemClock(),
        configuration: PaymentServiceConfiguration = PaymentServiceConfiguration(), faults: any FaultInjector = NoFaults(),
        sheetObserver: any SheetAnswerObserver = NoSheetObserver(), randomSeed: UInt64? = nil
    ) {
        let ledger = PaymentLedger(store: store, policy: configuration.policy)
        let idempotency = IdempotencyStore(store: store)
        let executor = PaymentExecutor(
            store: store, ledger: ledger, idempotency: idempotency, processor: processor, clock: clock, faults: faults,
            sheetObserver: sheetObserver, configuration: configuration)
        self.executor = executor
        self.reconciler = PaymentReconciler(executor: executor)
        self.resolver = OperatorResolver(executor: executor, reconciler: self.reconciler)
        self.configuration = configuration
        self.random = PaymentIDGenerator(seed: randomSeed)
    }

    /// Runs `body` with the service's store on the service's thread, then awaits the flushes
    /// its calls need, suspended (`CheckoutStore.awaitingFlush`). The checkout desk, which runs
    /// on this thread, keeps its checkouts here rather than on a connection of its own: two
    /// SQLite connections taking turns on one thread each find the file changed by the other
    /// at every transaction and throw their page cache away, so the index pages are read from
    /// the file again and again (docs/benchmarks.md).
    package func withCheckoutStore<T: Sendable>(_ body: @Sendable (any CheckoutStore) throws -> T) async throws -> T {
        let store = self.store
        return try await store.awaitingFlush { try body(store) }
    }

    // MARK: - Intents

    /// Creates an intent waiting for a payment method.
    public func createIntent(_ request: NewPaymentIntent) async throws -> PaymentIntent {
        try await createIntent(request, recoveryPoint: nil)
    }

    /// `createIntent`, recording the new intent on `recoveryPoint` (an idempotency claim) in the
    /// transaction that creates it, so a request that takes the key over answers with that
    /// intent instead of creating a second one.
    package func createIntent(_ request: NewPaymentIntent, recoveryPoint: IdempotencyClaim?) async throws -> PaymentIntent {
        let id = random.make(.intent)
        return try await executor.write { transaction in
            let intent = try ledger.create(request, id: id, at: clock.now(), in: transaction)
            if let recoveryPoint { try idempotency.attach(resourceID: id, to: recoveryPoint, in: transaction) }
            return intent
        }
    }

    /// The intent with its attempts, refunds and history; nil when unknown.
    public func details(_ intentID: String) async throws -> PaymentDetails? {
        try await executor.details(intentID)
    }

    /// A page of intents, newest first (`PaymentLedger.intentPage`).
    public func intentPage(
        status: PaymentStatus?, metadata: [String: String] = [:], startingAfter: String?, endingBefore: String?, limit: Int
    ) throws -> IntentPageResult {
        try ledger.intentPage(status: status, metadata: metadata, startingAfter: startingAfter, endingBefore: endingBefore, limit: limit)
    }

    /// The refund `id`, or nil when unknown.
    public func refund(id: String) throws -> Refund? {
        try ledger.refund(id: id)
    }

    // MARK: - Authorizing

    /// Opens a new attempt with the card or token and authorizes it, running everything the
    /// answer leads to (capture for automatic capture, the sheet's answer, a reversal). A
    /// decline is not an error: it is in the outcome (`failure`), and the intent waits for
    /// another payment method.
    public func authorize(_ submission: PaymentSubmission) async throws -> PaymentOutcome {
        try await authorize(submission, recoveryPoint: nil)
    }

    /// `authorize`, recording the new attempt on `recoveryPoint` (an idempotency claim, when
    /// there is one) in the same transaction that opens it, before the processor is called: a
    /// run that takes the key over after a failure or a crash finds the attempt and resumes it
    /// (`resume(attemptID:intentID:)`) instead of authorizing a second one.
    package func authorize(_ submission: PaymentSubmission, recoveryPoint: IdempotencyClaim?) async throws -> PaymentOutcome {
        var newAttemptID: String?
        let (transition, attemptID) = try await executor.write { transaction in
            // The intent is read inside the write that opens the attempt (no read transaction
            // of its own), and the machine it loads is the one the attempt is applied to.
            let current = try ledger.requireMachine(submission.intentID, in: transaction)
            // Made once: a write retried after a busy database opens the same attempt.
            let attemptID = newAttemptID ?? random.make(.attempt)
            newAttemptID = attemptID
            let opening = AttemptOpening(
                attemptID: attemptID, source: submission.source, card: CardSummary(submission.method),
                amount: submission.amount ?? current.intent.amount, answersPaymentSheet: submission.answersPaymentSheet)
            let transition = try ledger.openAttempt(
                opening, intentID: submission.intentID, tokenTransactionID: submission.tokenTransactionID,
                expectedVersion: nil, at: clock.now(), known: current, in: transaction)
            if let recoveryPoint { try idempotency.attach(resourceID: attemptID, to: recoveryPoint, in: transaction) }
            return (transition, attemptID)
        }
        let machine = try await executor.execute(
            transition, card: CardInMemory(attemptID: attemptID, method: submission.method, scenario: submission.scenario))
        let answered = submission.answersPaymentSheet ? try await recordingSheetAnswer(machine, attemptID: attemptID) : machine
        return PaymentOutcome(answered, attemptID: attemptID)
    }

    /// The outcome the device waiting on attempt `attemptID` is about to be told, with that
    /// answer recorded first: when the outcome is still open (the processor's answer was
    /// unknown before the sheet's deadline), the machine records `failure` on the attempt in
    /// one transition, and an approval found later (by a webhook, the worker, `reconcile`, a
    /// lookup after a restart) is reversed, never kept. What the device is told and what the
    /// database holds are then one answer. Unchanged when the sheet was answered already, or
    /// waits through a 3-D Secure challenge.
    package func answeringSheet(_ outcome: PaymentOutcome) async throws -> PaymentOutcome {
        // Most answers are known already: only an open outcome costs a read and a write.
        guard let attempt = outcome.attempt, attempt.sheet?.isAwaitingAnswer == true, outcome.intent.status == .processing else {
            return outcome
        }
        let attemptID = attempt.id
        return PaymentOutcome(try await recordingSheetAnswer(try await executor.loadMachine(outcome.intent.id), attemptID: attemptID), attemptID: attemptID)
    }

    private func recordingSheetAnswer(_ machine: PaymentStateMachine, attemptID: String) async throws -> PaymentStateMachine {
        guard machine.intent.status == .processing, machine.intent.currentAttemptID == attemptID,
            machine.attempts.first(where: { $0.id == attemptID })?.sheet?.isAwaitingAnswer == true
        else { return machine }
        do {
            let transition = try await executor.write { transaction in
                try ledger.apply(
                    .sheetAnswerDue(attemptID: attemptID), to: machine.intent.id, expectedVersion: nil, at: clock.now(), known: machine,
                    in: transaction)
            }
            // The work is the sheet's answer itself: it tells a `SheetAnswerObserver`.
            return try await executor.run(transition.executorWork, machine: transition.machine, card: nil).machine
        } catch let rejection as PaymentRejection {
            // Another writer (a webhook, another process's worker) settled the attempt between
            // the read and this write: its recorded answer is the one to give.
            guard case .notAllowed = rejection.reason else { throw rejection }
            return try await executor.loadMachine(machine.intent.id)
        }
    }

    /// The cardholder's answer to a 3-D Secure challenge: passed (the processor completes the
    /// authorization), failed, or abandoned (the intent waits for another payment method).
    public func completeChallenge(_ intentID: String, result: ChallengeResult) async throws -> PaymentOutcome {
        try await completeChallenge(intentID, result: result, recoveryPoint: nil)
    }

    /// `completeChallenge`, recording the attempt on `recoveryPoint` with the answer, so a
    /// request that takes the key over resumes that attempt.
    package func completeChallenge(_ intentID: String, result: ChallengeResult, recoveryPoint: IdempotencyClaim?) async throws -> PaymentOutcome {
        let machine = try await executor.loadMachine(intentID)
        guard let attemptID = machine.intent.currentAttemptID else {
            throw PaymentRejection(intentID: intentID, reason: .notAllowed(event: "challenge_\(result.rawValue)", status: machine.intent.status))
        }
        let event: PaymentEvent = switch result {
        case .passed: .challengePassed(attemptID: attemptID)
        case .failed: .challengeFailed(attemptID: attemptID)
        case .abandoned: .challengeAbandoned(attemptID: attemptID)
        }
        let transition = try await executor.apply(event, to: intentID, known: machine, recording: attemptID, on: recoveryPoint)
        return PaymentOutcome(try await executor.execute(transition, card: nil), attemptID: attemptID)
    }

    // MARK: - After authorization

    /// Captures `amount` minor units (nil: all that is capturable) of a `requires_capture` intent.
    public func capture(_ intentID: String, amount: Int64? = nil) async throws -> PaymentOutcome {
        try await capture(intentID, amount: amount, recoveryPoint: nil)
    }

    /// `capture`, recording the intent on `recoveryPoint` with the capture request, so a request
    /// that takes the key over resumes this capture (`resume(intentID:)`) instead of asking again.
    package func capture(_ intentID: String, amount: Int64?, recoveryPoint: IdempotencyClaim?) async throws -> PaymentOutcome {
        let transition = try await executor.apply(.captureRequested(amount: amount), to: intentID, recording: intentID, on: recoveryPoint)
        return PaymentOutcome(try await executor.execute(transition, card: nil), attemptID: transition.intent.currentAttemptID)
    }

    /// Cancels an intent: at once before authorization; by voiding the authorization after.
    public func cancel(_ intentID: String, reason: CancellationReason = .requestedByCustomer) async throws -> PaymentOutcome {
        try await cancel(intentID, reason: reason, recoveryPoint: nil)
    }

    /// `cancel`, recording the intent on `recoveryPoint` with the cancel request, so a request
    /// that takes the key over resumes this cancel (`resume(intentID:)`).
    package func cancel(_ intentID: String, reason: CancellationReason, recoveryPoint: IdempotencyClaim?) async throws -> PaymentOutcome {
        let transition = try await executor.apply(.cancelRequested(reason: reason), to: intentID, recording: intentID, on: recoveryPoint)
        return PaymentOutcome(try await executor.execute(transition, card: nil), attemptID: transition.intent.currentAttemptID)
    }

    /// Voids the authorization of an intent in `requires_capture`, and nothing else: unlike
    /// `cancel`, an intent in any other state is refused (`payment_intent_unexpected_state`
    /// with the event `void`). The cancel is applied at the version the state was checked at,
    /// so an intent that moved meanwhile is refused too (`version_conflict`), never canceled
    /// by surprise.
    public func void(_ intentID: String, reason: CancellationReason = .requestedByCustomer) async throws -> PaymentOutcome {
        let machine = try await executor.loadMachine(intentID)
        let intent = machine.intent
        guard intent.status == .requiresCapture else {
            throw PaymentRejection(intentID: intentID, reason: .notAllowed(event: "void", status: intent.status))
        }
        let transition = try await executor.write { transaction in
            try ledger.apply(
                .cancelRequested(reason: reason), to: intentID, expectedVersion: intent.version, at: clock.now(), known: machine,
                in: transaction)
        }
        return PaymentOutcome(try await executor.execute(transition, card: nil), attemptID: transition.intent.currentAttemptID)
    }

    /// Refunds `amount` minor units (nil: all that is refundable) of a captured intent. The
    /// refundable remainder is checked inside the same serialized write that reserves it, so
    /// two concurrent refunds can never exceed what was captured.
    public func refund(_ intentID: String, amount: Int64? = nil, reason: RefundReason? = nil) async throws -> PaymentOutcome {
        try await refund(intentID, amount: amount, reason: reason, recoveryPoint: nil)
    }

    /// `refund`, recording the new refund on `recoveryPoint` (an idempotency claim, when there
    /// is one) in the transaction that reserves it, so a run that takes the key over after a
    /// failure or a crash resumes that refund (`resume(refundID:intentID:)`) instead of
    /// refunding a second time.
    package func refund(_ intentID: String, amount: Int64?, reason: RefundReason?, recoveryPoint: IdempotencyClaim?) async throws -> PaymentOutcome {
        let refundID = random.make(.refund)
        let transition = try await executor.write { transaction in
            // Read inside the write: "all that is refundable" is what is left at this moment.
            let current = try ledger.requireMachine(intentID, in: transaction)
            let requested = amount ?? current.intent.amountRefundable
            let transition = try ledger.apply(
                .refundRequested(refundID: refundID, amount: requested, reason: reason), to: intentID, expectedVersion: nil,
                at: clock.now(), known: current, in: transaction)
            if let recoveryPoint { try idempotency.attach(resourceID: refundID, to: recoveryPoint, in: transaction) }
            return transition
        }
        return PaymentOutcome(try await executor.execute(transition, card: nil), refundID: refundID)
    }

    // MARK: - Finishing what was left open (PaymentReconciler)

    /// Looks up, now, every call still waiting for an answer (whatever its retry schedule),
    /// records what the processor says, runs what that leads to (a capture, a reversal, a call
    /// sent again), then fires every timer due at the service's clock (authorization expiry,
    /// abandonment, sheet deadlines, scheduled lookups). Safe to run at any time, from several
    /// processes.
    ///
    /// One intent that cannot be reconciled (a database error, an answer that makes no sense)
    /// does not stop the others: its error is in `failures`, and the rest goes on.
    ///
    /// `sparingCallsYoungerThan` leaves alone the calls that began (or became unknown) less
    /// than that long ago. A background worker must pass it: a call that began a moment ago
    /// is usually still in flight in a pay request of this or another server, and looking it
    /// up then finds nothing yet ("not found"), which would send the machine down the wrong
    /// branch while the real answer is on its way. `reconcileGrace` is the safe value. With it,
    /// a call already looked up without a conclusion waits for its reconciliation timer.
    /// The `reconcile` command passes nil: an operator asks about everything, now.
    public func reconcile(sparingCallsYoungerThan grace: Duration? = nil) async throws -> ReconciliationReport {
        try await reconciler.reconcile(sparingCallsYoungerThan: grace)
    }

    /// How long a worker leaves a call alone before it counts as abandoned: the processor
    /// timeout (after which the caller itself records the outcome as unknown) and 5 s more for
    /// the caller to write that down. A call older than this has lost its caller (a crash).
    public nonisolated var reconcileGrace: Duration { configuration.processorTimeout + .seconds(5) }

    /// Where the attempt a failed or crashed run opened stands now: its call, if still waiting
    /// for an answer, is looked up first (the card is gone, so it cannot be sent again).
    package func resume(attemptID: String, intentID: String) async throws -> PaymentOutcome {
        try await reconciler.resume(attemptID: attemptID, intentID: intentID)
    }

    /// Where the refund a failed or crashed run reserved stands now, after a lookup if it is
    /// pending.
    package func resume(refundID: String, intentID: String) async throws -> PaymentOutcome {
        try await reconciler.resume(refundID: refundID, intentID: intentID)
    }

    /// Where an intent a failed or crashed run moved (a capture, a cancel) stands now: the
    /// call in flight, if any, is looked up first; nothing is asked of the processor again.
    package func resume(intentID: String) async throws -> PaymentOutcome {
        try await reconciler.resume(intentID: intentID)
    }

    // MARK: - The processor's webhooks (ProcessorWebhookIntake)

    /// The inbox source of processor webhooks.
    public static let processorWebhookSource = "processor"

    /// Applies a verified processor webhook: its finding settles the call PayPanel waits on,
    /// exactly as the worker's lookup would, and a redelivery changes nothing
    /// (`ProcessorWebhookIntake.apply`).
    public func applyProcessorWebhook(_ event: ProcessorWebhookEvent) async throws -> ProcessorWebhookResult {
        try await ProcessorWebhookIntake(executor: executor, callerGrace: reconcileGrace).apply(event)
    }

    // MARK: - The operator's resolution (OperatorResolver)

    /// Resolves intent `intentID`, which must be in `requires_merchant_action`, as `resolution`,
    /// by `actor` because of `note`.
    ///
    /// The current attempt is looked up at the processor first (its authorization, then its
    /// capture and void). Unless `force` is set, a resolution the ledger contradicts is refused
    /// (`resolution_contradicts_processor`, saying what the processor holds and which
    /// resolutions it allows): `succeeded` needs a capture there, `authorized` a live
    /// authorization, `retry` no money held, and none is accepted when the processor cannot be
    /// asked. With `force` the resolution is applied anyway and recorded as forced, with what
    /// the processor said.
    ///
    /// The resolution is applied at the version the state was checked at: an intent that moved
    /// meanwhile is refused (`version_conflict`). Throws `PaymentInputError` for a note or a
    /// name that cannot be kept (empty, too long, control characters), before anything is asked.
    public func resolve(
        _ intentID: String, as resolution: IntentResolution, note: String, actor: String, force: Bool = false
    ) async throws -> ResolutionOutcome {
        try await resolve(intentID, as: resolution, note: note, actor: actor, force: force, recoveryPoint: nil)
    }

    /// `resolve`, recording the intent on `recoveryPoint` (an idempotency claim) with the
    /// resolution, so a request that takes the key over finishes what the resolution started
    /// (`resumeResolution`) instead of resolving again.
    package func resolve(
        _ intentID: String, as resolution: IntentResolution, note: String, actor: String, force: Bool, recoveryPoint: IdempotencyClaim?
    ) async throws -> ResolutionOutcome {
        try await resolver.resolve(intentID, as: resolution, note: note, actor: actor, force: force, recoveryPoint: recoveryPoint)
    }

    /// Where a resolution whose run failed after recording it stands now: the call it started
    /// (a void), if still in flight, is looked up, and the resolution is read back from the
    /// intent's history.
    package func resumeResolution(_ intentID: String) async throws -> ResolutionOutcome {
        try await resolver.resume(intentID)
    }
}

/// The cardholder's answer to a 3-D Secure challenge.
public enum ChallengeResult: String, Sendable, CaseIterable {
    case passed = "pass"
    case failed = "fail"
    case abandoned = "abandon"
}

/// The card of the attempt being authorized, kept in memory only while it is needed.
struct CardInMemory: Sendable {
    let attemptID: String
    let method: PaymentMethodData
    let scenario: String?
}

/// Payment ids from the system's random source, or from a seed (reproducible tests).
struct PaymentIDGenerator: Sendable {
    private var seeded: SeededRandomNumberGenerator?

    init(seed: UInt64?) {
        seeded = seed.map(SeededRandomNumberGenerator.init(seed:))
    }

    mutating func make(_ kind: PaymentIDs.Kind) -> String {
        if var generator = seeded {
            defer { seeded = generator }
            return PaymentIDs.make(kind, using: &generator)
        }
        var system = BatchedRandomNumberGenerator()
        return PaymentIDs.make(kind, using: &system)
    }
}

/// Told each time the Apple Pay sheet of an attempt gets its answer (`.answerSheet`), by
/// whichever path reached it: the processor's answer, the sheet's deadline timer, a lookup.
/// The server's pay call waits on it; the CLI reads the answer from the outcome instead.
public protocol SheetAnswerObserver: Sendable {
    func sheetAnswered(intentID: String, attemptID: String, answer: SheetAnswer)
}

/// Nobody is waiting for the sheet.
public struct NoSheetObserver: SheetAnswerObserver {
    public init() {}
    public func sheetAnswered(intentID: String, attemptID: String, answer: SheetAnswer) {}
}
