import Foundation

// Running the machine's work: processor calls between transactions, answers fed back as events.
extension CheckoutService {
    /// Runs `work` for intent `intentID` until the machine asks for nothing more, then fires
    /// the intent's timers that came due meanwhile (the Apple Pay sheet's deadline passes while
    /// a slow processor call waits). `card` is the attempt's card, when this process has it.
    func execute(_ work: [PaymentAction], intentID: String, card: CardInMemory?) async throws {
        try await run(work, intentID: intentID, card: card)
        for timer in try ledger.dueTimers(at: clock.now(), intentID: intentID) {
            _ = try await fire(timer, card: card)
        }
    }

    /// Runs `work` and the work each answer leads to, without looking at timers.
    func run(_ work: [PaymentAction], intentID: String, card: CardInMemory?) async throws {
        var queue = work[...]
        while let action = queue.popFirst() {
            queue += try await perform(action, intentID: intentID, card: card)
        }
    }

    /// Performs one action and returns the work the machine asks for after its answer.
    private func perform(_ action: PaymentAction, intentID: String, card: CardInMemory?) async throws -> [PaymentAction] {
        switch action {
        case .callProcessorAuthorize(let attemptID, let amount):
            guard let card, card.attemptID == attemptID else {
                // Only the process that received the card can send it. Anyone else (a retry
                // after a crash) must look the attempt up instead: an attempt is never
                // authorized twice.
                return []
            }
            let timeout = try callTimeout(intentID: intentID, attemptID: attemptID)
            let request = AuthorizationRequest(reference: attemptID, amount: amount, paymentMethod: card.method, scenario: card.scenario)
            return try await call(.authorize(attemptID: attemptID), intentID: intentID) {
                await self.processor.authorize(request, timeout: timeout)
            }
        case .callProcessorCompleteChallenge(let attemptID):
            let timeout = try callTimeout(intentID: intentID, attemptID: attemptID)
            return try await call(.completeChallenge(attemptID: attemptID), intentID: intentID) {
                await self.processor.completeChallenge(reference: attemptID, passed: true, timeout: timeout)
            }
        case .callProcessorCapture(let attemptID, let amount):
            let timeout = configuration.processorTimeout
            return try await call(.capture(attemptID: attemptID), intentID: intentID) {
                await self.processor.capture(CaptureRequest(reference: attemptID, amount: amount), timeout: timeout)
            }
        case .voidAuthorization(let attemptID, let reason):
            let timeout = configuration.processorTimeout
            if reason == .authorizationExpired {
                // Best effort: the intent is expired already and the answer changes nothing.
                faults.reach(.beforeProcessorCall(.void))
                _ = await processor.void(reference: attemptID, timeout: timeout)
                faults.reach(.afterProcessorCall(.void))
                return []
            }
            return try await call(.void(attemptID: attemptID), intentID: intentID) {
                await self.processor.void(reference: attemptID, timeout: timeout)
            }
        case .callProcessorRefund(let refundID, let attemptID, let amount):
            let timeout = configuration.processorTimeout
            let request = RefundRequest(reference: attemptID, refundReference: refundID, amount: amount)
            return try await call(.refund(refundID: refundID), intentID: intentID) {
                await self.processor.refund(request, timeout: timeout)
            }
        case .answerSheet, .scheduleTimer, .cancelTimer, .emitOutbox:
            // The sheet's answer is recorded on the attempt by the transition itself; the
            // others were written in the transition's transaction.
            return []
        }
    }

    /// Calls the processor and records its answer as one transition.
    private func call(
        _ processorCall: ProcessorCall, intentID: String, _ send: () async -> ProcessorOutcome
    ) async throws -> [PaymentAction] {
        faults.reach(.beforeProcessorCall(processorCall.operation))
        let outcome = await send()
        faults.reach(.afterProcessorCall(processorCall.operation))
        return try record(.processorAnswered(processorCall, outcome), intentID: intentID)
    }

    /// Applies `event`; an answer the intent no longer waits for (reconciliation got there
    /// first, from another process) changes nothing and is dropped.
    func record(_ event: PaymentEvent, intentID: String) throws -> [PaymentAction] {
        do {
            return try ledger.apply(event, to: intentID, expectedVersion: nil, at: clock.now()).executorWork
        } catch let rejection as PaymentRejection {
            switch rejection.reason {
            case .callNotInFlight, .refundNotPending, .terminal:
                return []
            default:
                throw rejection
            }
        }
    }

    /// The client timeout of a call for `attemptID`: the configured one, cut to the time left
    /// before the Apple Pay sheet's deadline when a sheet waits on the attempt.
    private func callTimeout(intentID: String, attemptID: String) throws -> Duration {
        let machine = try loadMachine(intentID)
        guard let sheet = machine.attempts.first(where: { $0.id == attemptID })?.sheet, sheet.isAwaitingAnswer else {
            return configuration.processorTimeout
        }
        let left = sheet.deadline.timeIntervalSince(clock.now())
        return min(configuration.processorTimeout, .milliseconds(Int64(max(0, left) * 1000)))
    }
}
