import Foundation

// Effects derived from the change of state, the same way after every event: answers to the
// Apple Pay sheet (here: answering changes the attempt), timers and outbox messages (read off
// the change by `PaymentStateChange`). Deriving them (rather than listing them in each
// transition) means no transition can forget to cancel a timer or announce a change.
extension PaymentStateMachine {
    struct DerivedEffects {
        /// Answers for a waiting Apple Pay sheet (run first: the payer is waiting).
        var sheetAnswers: [PaymentAction] = []
        /// Timers and outbox messages the ledger writes in the same transaction.
        var persisted: [PaymentAction] = []
    }

    /// Compares the machine with `before` (the state before the event) and derives the effects,
    /// answering the sheet of the current attempt when its outcome is now known.
    mutating func deriveEffects(from before: PaymentStateMachine, at now: Date) -> DerivedEffects {
        var effects = DerivedEffects()
        answerWaitingSheet(at: now, into: &effects)
        let change = PaymentStateChange(before: before, after: self)
        effects.persisted += change.timerChanges(at: now)
        effects.persisted += change.outboxMessages
        return effects
    }

    /// What a waiting sheet is told: success once the attempt is authorized, failure once it
    /// cannot be, nothing while the outcome is still open.
    private var sheetAnswerForCurrentState: SheetAnswer? {
        switch intent.status {
        case .requiresCapture, .succeeded: return .success
        case .requiresPaymentMethod, .canceled, .expired, .requiresMerchantAction: return .failure
        case .processing:
            switch intent.inFlight?.kind {
            case .capture: return .success
            case .void: return .failure
            default: return nil
            }
        case .requiresAction: return nil
        }
    }

    private mutating func answerWaitingSheet(at now: Date, into effects: inout DerivedEffects) {
        for attempt in attempts {
            guard case .awaitingAnswer(let deadline)? = attempt.sheet else { continue }
            // An attempt that is no longer current has failed, whatever the intent does next.
            let answer = attempt.id == intent.currentAttemptID ? sheetAnswerForCurrentState : .failure
            guard let answer else { continue }
            updateAttempt(attempt.id, at: now) { $0.sheet = .answered(answer, deadline: deadline) }
            effects.sheetAnswers.append(.answerSheet(attemptID: attempt.id, result: answer))
        }
    }
}
