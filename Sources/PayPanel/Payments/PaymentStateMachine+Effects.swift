import Foundation

// Effects derived from the change of state, the same way after every event: answers to the
// Apple Pay sheet, timers and outbox messages. Deriving them (rather than listing them in
// each transition) means no transition can forget to cancel a timer or announce a change.
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
        effects.persisted += timerChanges(from: before, at: now)
        effects.persisted += outboxMessages(from: before)
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

    private func timerChanges(from before: PaymentStateMachine, at now: Date) -> [PaymentAction] {
        var cancels: [PaymentAction] = []
        var schedules: [PaymentAction] = []
        let was = before.intent.status
        let status = intent.status

        // Waiting for a payment method: canceled if nobody pays.
        if status == .requiresPaymentMethod && was != .requiresPaymentMethod {
            schedules.append(.scheduleTimer(PaymentTimer(kind: .abandonment, reference: "", dueAt: now.addingTimeInterval(policy.abandonAfter))))
        } else if was == .requiresPaymentMethod && status != .requiresPaymentMethod {
            cancels.append(.cancelTimer(.abandonment, reference: ""))
        }
        // A challenge may not stay open forever.
        if status == .requiresAction && was != .requiresAction, let attemptID = intent.currentAttemptID {
            schedules.append(.scheduleTimer(PaymentTimer(kind: .challengeExpiry, reference: attemptID, dueAt: now.addingTimeInterval(policy.challengeTimeout))))
        } else if was == .requiresAction && status != .requiresAction, let attemptID = before.intent.currentAttemptID {
            cancels.append(.cancelTimer(.challengeExpiry, reference: attemptID))
        }
        // An authorization waiting for capture lapses at captureBefore (due at once if past).
        if status == .requiresCapture && was != .requiresCapture, let attemptID = intent.currentAttemptID, let captureBefore = intent.captureBefore {
            schedules.append(.scheduleTimer(PaymentTimer(kind: .authorizationExpiry, reference: attemptID, dueAt: captureBefore)))
        } else if was == .requiresCapture && status != .requiresCapture, let attemptID = before.intent.currentAttemptID {
            cancels.append(.cancelTimer(.authorizationExpiry, reference: attemptID))
        }
        // The sheet deadline of new attempts; answered sheets need no deadline.
        for attempt in attempts {
            let previous = before.attempts.first { $0.id == attempt.id }?.sheet
            if case .awaitingAnswer(let deadline)? = attempt.sheet, previous == nil {
                schedules.append(.scheduleTimer(PaymentTimer(kind: .sheetDeadline, reference: attempt.id, dueAt: deadline)))
            } else if previous?.isAwaitingAnswer == true, attempt.sheet?.isAwaitingAnswer != true {
                cancels.append(.cancelTimer(.sheetDeadline, reference: attempt.id))
            }
        }
        // A call in flight is looked up if no answer is recorded in time (the executor may
        // have crashed): the timer moves with every change of the call, and goes with it.
        if let operation = intent.inFlight, operation != before.intent.inFlight {
            if let previous = before.intent.inFlight, previous.attemptID != operation.attemptID {
                cancels.append(.cancelTimer(.reconciliation, reference: previous.attemptID))
            }
            let delay = policy.reconciliationDelay(afterLookups: operation.reconciliationLookups)
            schedules.append(.scheduleTimer(PaymentTimer(kind: .reconciliation, reference: operation.attemptID, dueAt: now.addingTimeInterval(delay))))
        } else if intent.inFlight == nil, let previous = before.intent.inFlight {
            cancels.append(.cancelTimer(.reconciliation, reference: previous.attemptID))
        }
        for refund in refunds {
            let previous = before.refunds.first { $0.id == refund.id }
            guard previous != refund else { continue }
            if refund.status == .pending {
                let delay = policy.reconciliationDelay(afterLookups: refund.reconciliationLookups)
                schedules.append(.scheduleTimer(PaymentTimer(kind: .reconciliation, reference: refund.id, dueAt: now.addingTimeInterval(delay))))
            } else if previous?.status == .pending {
                cancels.append(.cancelTimer(.reconciliation, reference: refund.id))
            }
        }
        return cancels + schedules
    }

    /// One message per change of the intent's status, and one per new or changed refund status.
    private func outboxMessages(from before: PaymentStateMachine) -> [PaymentAction] {
        var messages: [PaymentAction] = []
        if intent.status != before.intent.status {
            let topic: OutboxTopic = switch intent.status {
            case .requiresPaymentMethod: .intentPaymentFailed
            case .requiresAction: .intentRequiresAction
            case .processing: .intentProcessing
            case .requiresCapture: .intentAmountCapturableUpdated
            case .requiresMerchantAction: .intentRequiresMerchantAction
            case .succeeded: .intentSucceeded
            case .canceled: .intentCanceled
            case .expired: .intentExpired
            }
            messages.append(.emitOutbox(topic, refundID: nil))
        }
        for refund in refunds {
            let previous = before.refunds.first { $0.id == refund.id }?.status
            guard previous != refund.status else { continue }
            let topic: OutboxTopic = switch refund.status {
            case .pending: .refundCreated
            case .succeeded: .refundSucceeded
            case .failed: .refundFailed
            case .requiresMerchantAction: .refundRequiresMerchantAction
            }
            messages.append(.emitOutbox(topic, refundID: refund.id))
        }
        return messages
    }
}
