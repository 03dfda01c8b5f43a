import Foundation

// Capture, cancel and void, and timers.
extension PaymentStateMachine {
    mutating func handleCaptureRequested(_ requested: Int64?, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard intent.status == .requiresCapture, let attemptID = intent.currentAttemptID else {
            throw notAllowed("capture_requested")
        }
        if let captureBefore = intent.captureBefore, now >= captureBefore {
            throw reject(.authorizationExpired(captureBefore: captureBefore))
        }
        let capturable = intent.amountCapturable
        let captureAmount = requested ?? capturable
        guard captureAmount > 0, captureAmount <= capturable else {
            throw reject(.captureAmountInvalid(requested: captureAmount, capturable: capturable, currency: intent.currency))
        }
        intent.lastError = nil
        intent.status = .processing
        intent.inFlight = InFlightOperation(kind: .capture, attemptID: attemptID, amount: captureAmount, startedAt: now)
        return [.callProcessorCapture(attemptID: attemptID, amount: amount(captureAmount))]
    }

    mutating func handleCancelRequested(_ reason: CancellationReason, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        switch intent.status {
        case .requiresPaymentMethod:
            intent.cancellationReason = reason
            intent.status = .canceled
            return []
        case .requiresAction:
            if let attemptID = intent.currentAttemptID {
                updateAttempt(attemptID, at: now) {
                    $0.status = .failed
                    $0.failure = PaymentFailure(code: .authenticationAbandoned, message: "the intent was canceled during the 3-D Secure challenge", attemptID: attemptID)
                }
            }
            intent.cancellationReason = reason
            intent.status = .canceled
            return []
        case .requiresCapture:
            guard let attemptID = intent.currentAttemptID else { throw notAllowed("cancel_requested") }
            // The reason waits with the void: it is the intent's once the void succeeds.
            intent.cancellationReason = reason
            intent.lastError = nil
            intent.status = .processing
            intent.inFlight = InFlightOperation(
                kind: .void, attemptID: attemptID, amount: intent.amountAuthorized, voidPurpose: .cancel, startedAt: now)
            return [.voidAuthorization(attemptID: attemptID, reason: .cancel)]
        default:
            throw notAllowed("cancel_requested")
        }
    }

    mutating func handleCaptureAnswer(_ operation: InFlightOperation, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let attemptID = operation.attemptID
        switch outcome {
        case .approved(let approval):
            guard approval.amount == amount(operation.amount) else {
                requireMerchantAction(PaymentFailure(
                    code: .amountMismatch,
                    message: "the processor captured \(approval.amount) where \(amount(operation.amount)) was asked: check the capture at the processor and resolve the intent",
                    attemptID: attemptID))
                return []
            }
            updateAttempt(attemptID, at: now) { $0.status = .captured }
            intent.amountCaptured = operation.amount
            intent.lastError = nil
            intent.inFlight = nil
            intent.status = .succeeded
            return []
        case .declined(let code):
            backToRequiresCapture(PaymentFailure(
                code: .captureFailed, declineCode: code, message: "the processor refused the capture (\(code)): capture again or cancel",
                attemptID: attemptID))
            return []
        case .challengeRequired:
            throw reject(.unexpectedOutcome(operation.call, outcome: outcome.eventSuffix))
        case .pending, .unknown:
            markOutcomeUnknown(at: now)
            return []
        case .notProcessed(let reason):
            return retryUnprocessed(operation) { machine in
                machine.backToRequiresCapture(PaymentFailure(
                    code: .processorUnavailable, message: "the processor did not process the capture (\(reason)): capture again later",
                    attemptID: attemptID))
            }
        }
    }

    mutating func handleVoidAnswer(_ operation: InFlightOperation, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let attemptID = operation.attemptID
        let isReversal = operation.voidPurpose == .reversal
        switch outcome {
        case .approved:
            updateAttempt(attemptID, at: now) { $0.status = .voided }
            intent.inFlight = nil
            if isReversal {
                intent.lastError = PaymentFailure(
                    code: .sheetDeadlineExceeded,
                    message: "the processor approved after the Apple Pay sheet had been answered with failure; the authorization was reversed",
                    attemptID: attemptID)
                intent.status = .requiresPaymentMethod
            } else {
                intent.status = .canceled
            }
            return []
        case .declined(let code):
            voidFailed(operation, PaymentFailure(
                code: isReversal ? .reversalFailed : .voidFailed, declineCode: code,
                message: "the processor refused to void the authorization (\(code))", attemptID: attemptID))
            return []
        case .challengeRequired:
            throw reject(.unexpectedOutcome(operation.call, outcome: outcome.eventSuffix))
        case .pending, .unknown:
            markOutcomeUnknown(at: now)
            return []
        case .notProcessed(let reason):
            return retryUnprocessed(operation) { machine in
                if isReversal {
                    // The payer was told the payment failed, so the approval must be undone, and
                    // nothing was voided or refused: the reversal stays in flight and
                    // reconciliation looks it up and sends it again (a lookup that finds no void
                    // resends it), as a refund the processor could not take stays pending. An
                    // operator is asked only when the processor refuses it or reconciliation runs out.
                    machine.markOutcomeUnknown(at: now)
                } else {
                    machine.voidFailed(operation, PaymentFailure(
                        code: .processorUnavailable, message: "the processor did not process the void (\(reason))", attemptID: attemptID))
                }
            }
        }
    }

    /// A failed cancel leaves the authorization in place; a failed reversal holds a payer's
    /// money after they were told the payment failed, so an operator must act.
    mutating func voidFailed(_ operation: InFlightOperation, _ failure: PaymentFailure) {
        if operation.voidPurpose == .reversal {
            requireMerchantAction(failure)
        } else {
            intent.cancellationReason = nil
            backToRequiresCapture(failure)
        }
    }

    /// The authorization still stands: the merchant may capture again or cancel.
    mutating func backToRequiresCapture(_ failure: PaymentFailure) {
        intent.inFlight = nil
        intent.lastError = failure
        intent.status = .requiresCapture
    }

    // MARK: - The sheet's answer

    /// The device is answered before the deadline with the outcome still open (the processor's
    /// answer was unknown): only an authorization still in flight for the attempt qualifies. A
    /// sheet waiting through a 3-D Secure challenge (`requires_action`) is not answered here:
    /// the challenge continues the same sheet, within the same deadline.
    mutating func handleSheetAnswerDue(_ attemptID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard intent.status == .processing, intent.currentAttemptID == attemptID,
            let kind = intent.inFlight?.kind, kind == .authorize || kind == .completeChallenge,
            let attempt = attempts.first(where: { $0.id == attemptID }), case .awaitingAnswer(let deadline)? = attempt.sheet
        else { throw notAllowed("sheet_answer_due") }
        return answerSheetWithFailure(attemptID, deadline: deadline, at: now)
    }

    /// Records that the sheet was told failure while the outcome is still open; an approval
    /// that comes later finds the answer and is reversed (`approveAuthorization`).
    private mutating func answerSheetWithFailure(_ attemptID: String, deadline: Date, at now: Date) -> [PaymentAction] {
        updateAttempt(attemptID, at: now) { $0.sheet = .answered(.failure, deadline: deadline) }
        return [.answerSheet(attemptID: attemptID, result: .failure)]
    }

    // MARK: - Timers

    mutating func handleTimer(_ kind: PaymentTimer.Kind, reference: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let notApplicable = reject(.timerNotApplicable(kind, status: intent.status))
        switch kind {
        case .abandonment:
            guard intent.status == .requiresPaymentMethod else { throw notApplicable }
            intent.cancellationReason = .abandoned
            intent.status = .canceled
            return []
        case .challengeExpiry:
            guard intent.status == .requiresAction, intent.currentAttemptID == reference else { throw notApplicable }
            failAttempt(reference, PaymentFailure(
                code: .authenticationTimedOut, message: "the 3-D Secure challenge was not completed in time", attemptID: reference), at: now)
            return []
        case .sheetDeadline:
            guard let attempt = attempts.first(where: { $0.id == reference }), case .awaitingAnswer(let deadline)? = attempt.sheet,
                now >= deadline
            else { throw notApplicable }
            return answerSheetWithFailure(reference, deadline: deadline, at: now)
        case .authorizationExpiry:
            guard intent.status == .requiresCapture, intent.currentAttemptID == reference,
                let captureBefore = intent.captureBefore, now >= captureBefore
            else { throw notApplicable }
            updateAttempt(reference, at: now) { $0.status = .expired }
            intent.status = .expired
            return [.voidAuthorization(attemptID: reference, reason: .authorizationExpired)]
        case .reconciliation:
            // Reconciliation timers drive lookups; the lookup's result is the event.
            throw notApplicable
        }
    }
}
