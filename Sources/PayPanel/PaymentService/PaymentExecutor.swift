import Foundation

/// Runs the machine's work for one `PaymentService`: writes transitions through the ledger,
/// calls the processor between those transactions, feeds each answer back as an event, fires
/// the timers that come due, and looks up calls whose answer is unknown.
///
/// It holds no state of its own, only what the service was given, and runs on the service's
/// executor: its async functions are `nonisolated(nonsending)`, so a store call here holds the
/// service's own thread, never a shared one (`ActorThread`), and the service's payments stay
/// one writer at a time.
struct PaymentExecutor {
    let store: any PaymentStore
    let ledger: PaymentLedger
    let idempotency: IdempotencyStore
    let processor: any PaymentProcessor
    let clock: any WallClock
    let faults: any FaultInjector
    let sheetObserver: any SheetAnswerObserver
    let configuration: PaymentServiceConfiguration

    // MARK: - Writing transitions

    /// One write of the service's own. The wait for its flush suspends the service rather than
    /// holding its thread, so the other payments it serves meanwhile commit into the same flush
    /// (`PaymentStore.writeAwaitingFlush`); it returns once the write is durable, so whatever
    /// follows (a processor call, an answer) comes after the record of it, as before.
    nonisolated(nonsending) func write<T>(_ body: (any PaymentStoreTransaction) throws -> T) async throws -> T {
        try await store.writeAwaitingFlush(body)
    }

    /// Applies `event` to the intent and, when there is a recovery point, records `resourceID`
    /// on it in the same write: the claim names what was started exactly when it started.
    nonisolated(nonsending) func apply(
        _ event: PaymentEvent, to intentID: String, expectedVersion: Int64? = nil, known: PaymentStateMachine? = nil,
        recording resourceID: String, on recoveryPoint: IdempotencyClaim?
    ) async throws -> PaymentTransition {
        try await write { transaction in
            let transition = try ledger.apply(
                event, to: intentID, expectedVersion: expectedVersion, at: clock.now(), known: known, in: transaction)
            if let recoveryPoint { try idempotency.attach(resourceID: resourceID, to: recoveryPoint, in: transaction) }
            return transition
        }
    }

    /// The intent's machine as the store holds it now, once what it shows is durable (the
    /// wait suspends the service rather than holding its thread: `PaymentStore.awaitingFlush`).
    nonisolated(nonsending) func loadMachine(_ intentID: String) async throws -> PaymentStateMachine {
        try await store.awaitingFlush { try ledger.requireMachine(intentID) }
    }

    /// The intent with its attempts, refunds and history (nil when unknown), once what it shows
    /// is durable, as `loadMachine`.
    nonisolated(nonsending) func details(_ intentID: String) async throws -> PaymentDetails? {
        try await store.awaitingFlush { try ledger.details(intentID) }
    }

    // MARK: - Running the work
    /// Runs the work of `transition` until the machine asks for nothing more, then fires the
    /// intent's timers that came due meanwhile (the Apple Pay sheet's deadline passes while a
    /// slow processor call waits), and returns the machine as this run last committed it.
    /// `card` is the attempt's card, when this process has it.
    nonisolated(nonsending) func execute(_ transition: PaymentTransition, card: CardInMemory?) async throws -> PaymentStateMachine {
        let (machine, readWithLastStep) = try await run(transition.executorWork, machine: transition.machine, card: card)
        // The last processor answer's transaction read them already, unless there was none.
        let due = try readWithLastStep ?? ledger.dueTimers(at: clock.now(), limit: PaymentLedger.dueTimersPerIntent, intentID: machine.intent.id)
        for timer in due {
            _ = try await fire(timer, card: card)
        }
        // A fired timer moved the intent on through its own transitions: read it once.
        return due.isEmpty ? machine : try await loadMachine(machine.intent.id)
    }

    /// Runs `work` and the work each answer leads to, without firing timers. Each answer is
    /// applied to the machine the previous transition returned, so nothing is read again to
    /// learn what just happened; the returned machine is the last one committed. `dueTimers`:
    /// the intent's due timers as the last answer's transaction read them, when the run ended
    /// on an answer that asked for nothing more (nil: not read).
    nonisolated(nonsending) func run(
        _ work: [PaymentAction], machine: PaymentStateMachine, card: CardInMemory?
    ) async throws -> (machine: PaymentStateMachine, dueTimers: [DueTimer]?) {
        var queue = work[...]
        var current = machine
        var due: [DueTimer]?
        while let action = queue.popFirst() {
            let step = try await perform(action, machine: current, card: card)
            current = step.machine
            queue += step.work
            due = step.dueTimers
        }
        return (current, due)
    }

    /// The machine after one action, the work it asks for next, and (after a processor answer
    /// that asks for nothing more) the intent's due timers read in the answer's transaction.
    typealias Step = (machine: PaymentStateMachine, work: [PaymentAction], dueTimers: [DueTimer]?)

    /// Performs one action.
    private nonisolated(nonsending) func perform(_ action: PaymentAction, machine: PaymentStateMachine, card: CardInMemory?) async throws -> Step {
        let intentID = machine.intent.id
        switch action {
        case .callProcessorAuthorize(let attemptID, let amount):
            guard let card, card.attemptID == attemptID else {
                // Only the process that received the card can send it. Anyone else (a retry
                // after a crash) must look the attempt up instead: an attempt is never
                // authorized twice.
                return (machine, [], nil)
            }
            let timeout = callTimeout(machine, attemptID: attemptID)
            let request = AuthorizationRequest(reference: attemptID, amount: amount, paymentMethod: card.method, scenario: card.scenario)
            return try await call(.authorize(attemptID: attemptID), machine: machine) {
                await self.processor.authorize(request, timeout: timeout)
            }
        case .callProcessorCompleteChallenge(let attemptID):
            let timeout = callTimeout(machine, attemptID: attemptID)
            return try await call(.completeChallenge(attemptID: attemptID), machine: machine) {
                await self.processor.completeChallenge(reference: attemptID, passed: true, timeout: timeout)
            }
        case .callProcessorCapture(let attemptID, let amount):
            let timeout = callTimeout(machine, attemptID: attemptID)
            return try await call(.capture(attemptID: attemptID), machine: machine) {
                await self.processor.capture(CaptureRequest(reference: attemptID, amount: amount), timeout: timeout)
            }
        case .voidAuthorization(let attemptID, let reason):
            let timeout = configuration.processorTimeout
            if reason == .authorizationExpired {
                // Best effort: the intent is expired already and the answer changes nothing.
                try faults.reach(.beforeProcessorCall(.void))
                _ = await processor.void(reference: attemptID, timeout: timeout)
                try faults.reach(.afterProcessorCall(.void))
                return (machine, [], nil)
            }
            return try await call(.void(attemptID: attemptID), machine: machine) {
                await self.processor.void(reference: attemptID, timeout: timeout)
            }
        case .callProcessorRefund(let refundID, let attemptID, let amount):
            let timeout = configuration.processorTimeout
            let request = RefundRequest(reference: attemptID, refundReference: refundID, amount: amount)
            return try await call(.refund(refundID: refundID), machine: machine) {
                await self.processor.refund(request, timeout: timeout)
            }
        case .answerSheet(let attemptID, let answer):
            // Recorded on the attempt by the transition itself; here the waiting device (the
            // server's pay call) is told, whichever path reached the answer.
            sheetObserver.sheetAnswered(intentID: intentID, attemptID: attemptID, answer: answer)
            return (machine, [], nil)
        case .scheduleTimer, .cancelTimer, .emitOutbox:
            // Written in the transition's own transaction.
            return (machine, [], nil)
        }
    }

    /// Calls the processor and records its answer as one transition.
    private nonisolated(nonsending) func call(
        _ processorCall: ProcessorCall, machine: PaymentStateMachine, _ send: () async -> ProcessorOutcome
    ) async throws -> Step {
        try faults.reach(.beforeProcessorCall(processorCall.operation))
        let outcome = await send()
        try faults.reach(.afterProcessorCall(processorCall.operation))
        return try await record(.processorAnswered(processorCall, outcome), intentID: machine.intent.id, known: machine, readingDueTimers: true)
    }

    /// Applies `event` (to `known` when the caller holds the intent's machine); returns the
    /// machine after it and the work to run. An answer the intent no longer waits for
    /// (reconciliation got there first, from another process) changes nothing and is dropped.
    nonisolated(nonsending) func record(
        _ event: PaymentEvent, intentID: String, known: PaymentStateMachine? = nil, readingDueTimers: Bool = false
    ) async throws -> Step {
        do {
            let transition = try await write { transaction in
                try ledger.apply(
                    event, to: intentID, expectedVersion: nil, at: clock.now(), known: known, readingDueTimers: readingDueTimers,
                    in: transaction)
            }
            return (transition.machine, transition.executorWork, transition.dueTimers)
        } catch let rejection as PaymentRejection {
            switch rejection.reason {
            case .callNotInFlight, .refundNotPending, .terminal:
                // Someone else moved the intent: what we held is stale.
                return (try await loadMachine(intentID), [], nil)
            default:
                throw rejection
            }
        }
    }

    /// The client timeout of an authorization, a challenge completion, a capture or a lookup
    /// of one for `attemptID`: the configured one, cut to the time left before the Apple Pay
    /// sheet's deadline while a device may still wait on the attempt — its sheet unanswered, or
    /// answered success with the automatic capture still to run in the same pay call. So a pay
    /// call answers within the sheet's budget on every path; a capture cut short is an unknown
    /// outcome that reconciliation settles (the approval, and the device's success, stand).
    func callTimeout(_ machine: PaymentStateMachine, attemptID: String) -> Duration {
        guard let sheet = machine.attempts.first(where: { $0.id == attemptID })?.sheet else {
            return configuration.processorTimeout
        }
        let left = sheet.deadline.timeIntervalSince(clock.now())
        guard sheet.isAwaitingAnswer || left > 0 else { return configuration.processorTimeout }
        return min(configuration.processorTimeout, .milliseconds(Int64(max(0, left) * 1000)))
    }

    // MARK: - Timers and lookups

    /// Fires one due timer and runs what it leads to; nil when another process handled it.
    nonisolated(nonsending) func fire(_ timer: DueTimer, card: CardInMemory?) async throws -> ReconciliationReport.TimerEntry? {
        let before = try ledger.intent(timer.intentID)?.status
        switch try ledger.fireTimer(timer, at: clock.now()) {
        case .applied(let transition):
            _ = try await run(transition.executorWork, machine: transition.machine, card: card)
        case .lookupDue(let intentID, let call):
            _ = try await lookUp(call, intentID: intentID)
        case .discarded, .alreadyHandled:
            return nil
        }
        let after = try ledger.intent(timer.intentID)?.status
        return ReconciliationReport.TimerEntry(intentID: timer.intentID, kind: timer.kind, reference: timer.reference,
                                               statusBefore: before, statusAfter: after)
    }

    /// Asks the processor about `call` and records the finding.
    nonisolated(nonsending) func lookUp(_ call: ProcessorCall, intentID: String) async throws -> ReconciliationReport.LookupEntry {
        let machine = try await loadMachine(intentID)
        let before = machine.intent.status
        // A device may be waiting on this lookup (a pay call resumed after a crash): bounded by
        // the sheet's deadline like the call it looks up, unless that deadline has passed.
        let cut: Duration = switch call {
        case .authorize(let attemptID), .completeChallenge(let attemptID), .capture(let attemptID): callTimeout(machine, attemptID: attemptID)
        case .void, .refund: configuration.processorTimeout
        }
        let timeout = cut > .zero ? cut : configuration.processorTimeout
        let result = await processor.lookup(reference: call.reference, operation: call.operation, timeout: timeout)
        let event: PaymentEvent = switch result {
        case .found(let outcome): .reconciliationFound(call, outcome)
        case .notFound: .reconciliationNotFound(call)
        case .unavailable(let reason): .reconciliationUnavailable(call, reason: reason)
        }
        let recorded = try await record(event, intentID: intentID)
        let after = try await run(recorded.work, machine: recorded.machine, card: nil).machine.intent.status
        return ReconciliationReport.LookupEntry(intentID: intentID, call: call, finding: result, statusBefore: before, statusAfter: after)
    }
}
