import Foundation

// Running the machine's work: processor calls between transactions, answers fed back as events.
extension PaymentService {
    /// Runs the work of `transition` until the machine asks for nothing more, then fires the
    /// intent's timers that came due meanwhile (the Apple Pay sheet's deadline passes while a
    /// slow processor call waits), and returns the machine as this run last committed it.
    /// `card` is the attempt's card, when this process has it.
    func execute(_ transition: PaymentTransition, card: CardInMemory?) async throws -> PaymentStateMachine {
        let (machine, readWithLastStep) = try await run(transition.executorWork, machine: transition.machine, card: card)
        // The last processor answer's transaction read them already, unless there was none.
        let due = try readWithLastStep ?? ledger.dueTimers(at: clock.now(), limit: PaymentLedger.dueTimersPerIntent, intentID: machine.intent.id)
        for timer in due {
            _ = try await fire(timer, card: card)
        }
        // A fired timer moved the intent on through its own transitions: read it once.
        return due.isEmpty ? machine : try loadMachine(machine.intent.id)
    }

    /// Runs `work` and the work each answer leads to, without firing timers. Each answer is
    /// applied to the machine the previous transition returned, so nothing is read again to
    /// learn what just happened; the returned machine is the last one committed. `dueTimers`:
    /// the intent's due timers as the last answer's transaction read them, when the run ended
    /// on an answer that asked for nothing more (nil: not read).
    func run(
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
    private func perform(_ action: PaymentAction, machine: PaymentStateMachine, card: CardInMemory?) async throws -> Step {
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
    private func call(
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
    func record(
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
                return (try loadMachine(intentID), [], nil)
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
}
