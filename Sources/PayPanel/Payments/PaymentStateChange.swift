import Foundation

/// One event's change to a payment (the machine before and after it), and what follows from
/// the change alone, the same way after every event: the timers to cancel and schedule, and
/// the outbox messages announcing new statuses. Pure: nothing here reads the event, so no
/// transition can forget a timer or a message, and none can add one of its own.
///
/// `PaymentStateMachine.deriveEffects` asks it after every event; answering a waiting Apple Pay
/// sheet, which changes the attempt, stays with the machine.
struct PaymentStateChange {
    let before: PaymentStateMachine
    let after: PaymentStateMachine

    /// Timers to cancel, then timers to schedule.
    func timerChanges(at now: Date) -> [PaymentAction] {
        let (intent, attempts, refunds, policy) = (after.intent, after.attempts, after.refunds, after.policy)
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
    var outboxMessages: [PaymentAction] {
        let (intent, refunds) = (after.intent, after.refunds)
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
