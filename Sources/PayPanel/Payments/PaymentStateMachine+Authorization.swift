import Foundation

// Attempts, authorization answers and the 3-D Secure challenge.
extension PaymentStateMachine {
    mutating func handleAttemptOpened(_ opening: AttemptOpening, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard intent.status == .requiresPaymentMethod else { throw notAllowed("attempt_opened") }
        guard !attempts.contains(where: { $0.id == opening.attemptID }) else {
            throw reject(.duplicateAttempt(opening.attemptID))
        }
        guard intent.attemptCount < policy.maximumAttempts else {
            throw reject(.attemptLimitReached(limit: policy.maximumAttempts))
        }
        guard opening.amount == intent.amount else {
            throw reject(.attemptAmountMismatch(expected: intent.amount, actual: opening.amount))
        }
        let sheet: SheetState? = opening.answersPaymentSheet
            ? .awaitingAnswer(deadline: now.addingTimeInterval(policy.sheetAnswerDeadline)) : nil
        attempts.append(Attempt(
            id: opening.attemptID, intentID: intent.id, sequence: intent.attemptCount + 1, status: .authorizing,
            source: opening.source, card: opening.card, amount: opening.amount, sheet: sheet,
            createdAt: now, updatedAt: now))
        intent.attemptCount += 1
        intent.currentAttemptID = opening.attemptID
        intent.lastError = nil
        intent.status = .processing
        intent.inFlight = InFlightOperation(kind: .authorize, attemptID: opening.attemptID, amount: intent.amount.minorUnits, startedAt: now)
        return [.callProcessorAuthorize(attemptID: opening.attemptID, amount: intent.amount)]
    }

    /// Routes a processor answer to the handler of the operation it answers (a refund's
    /// answer goes to the `RefundBook`).
    mutating func handleAnswer(_ call: ProcessorCall, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let operation = try inFlightOperation(answering: call)
        switch operation.kind {
        case .authorize, .completeChallenge: return try handleAuthorizationAnswer(operation, outcome, at: now)
        case .capture: return try handleCaptureAnswer(operation, outcome, at: now)
        case .void: return try handleVoidAnswer(operation, outcome, at: now)
        }
    }

    /// The operation in flight, when `call` is the one it waits for.
    func inFlightOperation(answering call: ProcessorCall) throws(PaymentRejection) -> InFlightOperation {
        guard let operation = intent.inFlight, operation.call == call else { throw reject(.callNotInFlight(call)) }
        return operation
    }

    /// Answers to `authorize` and to `completeChallenge`: both end in an authorization or not.
    mutating func handleAuthorizationAnswer(_ operation: InFlightOperation, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let attemptID = operation.attemptID
        switch outcome {
        case .approved(let approval):
            return approveAuthorization(attemptID, approval, at: now)
        case .declined(let code):
            let failure = code == .authenticationFailed
                ? PaymentFailure(code: .authenticationFailed, declineCode: code, message: "the card issuer could not authenticate the cardholder", attemptID: attemptID)
                : PaymentFailure(code: .cardDeclined, declineCode: code, message: "the card was declined (\(code))", attemptID: attemptID)
            failAttempt(attemptID, failure, at: now)
            return []
        case .challengeRequired:
            updateAttempt(attemptID, at: now) { $0.status = .requiresAction }
            intent.inFlight = nil
            intent.status = .requiresAction
            return []
        case .pending, .unknown:
            markOutcomeUnknown(at: now)
            return []
        case .notProcessed(let reason):
            return retryUnprocessed(operation) { machine in
                machine.failAttempt(attemptID, PaymentFailure(
                    code: .processorUnavailable,
                    message: "the processor refused the authorization \(operation.processorRetries + 1) times without processing it (\(reason))",
                    attemptID: attemptID), at: now)
            }
        }
    }

    /// An approved authorization: held for manual capture, captured at once (automatic), sent
    /// to an operator when the processor approved another amount, or reversed when the sheet
    /// was already told it failed.
    private mutating func approveAuthorization(_ attemptID: String, _ approval: ProcessorApproval, at now: Date) -> [PaymentAction] {
        let processorID = SensitiveDigits.redacted(approval.processorID)
        let lateForSheet = attempts.first { $0.id == attemptID }?.sheet?.answer == .failure
        updateAttempt(attemptID, at: now) {
            $0.status = .authorized
            $0.approvedAmount = approval.amount
            $0.processorID = processorID
        }
        if lateForSheet {
            // The payer was told the payment failed: the money must not stay held.
            intent.lastError = PaymentFailure(
                code: .sheetDeadlineExceeded,
                message: "the processor approved after the Apple Pay sheet had been answered with failure: the authorization is being reversed",
                attemptID: attemptID)
            intent.inFlight = InFlightOperation(
                kind: .void, attemptID: attemptID, amount: intent.amount.minorUnits, voidPurpose: .reversal, startedAt: now)
            return [.voidAuthorization(attemptID: attemptID, reason: .reversal)]
        }
        guard approval.amount == intent.amount else {
            requireMerchantAction(PaymentFailure(
                code: .amountMismatch,
                message: "the processor approved \(approval.amount) for an intent of \(intent.amount): check the authorization at the processor and resolve the intent",
                attemptID: attemptID))
            return []
        }
        intent.amountAuthorized = approval.amount.minorUnits
        var captureBefore = now.addingTimeInterval(policy.captureWindow)
        if let expiresAt = approval.expiresAt, expiresAt < captureBefore { captureBefore = expiresAt }
        intent.captureBefore = captureBefore
        switch intent.captureMethod {
        case .manual:
            intent.inFlight = nil
            intent.status = .requiresCapture
            return []
        case .automatic:
            intent.inFlight = InFlightOperation(kind: .capture, attemptID: attemptID, amount: intent.amountAuthorized, startedAt: now)
            return [.callProcessorCapture(attemptID: attemptID, amount: amount(intent.amountAuthorized))]
        }
    }

    mutating func handleChallengePassed(_ attemptID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try requireChallenge(of: attemptID, event: "challenge_passed")
        updateAttempt(attemptID, at: now) { $0.status = .authorizing }
        intent.status = .processing
        intent.inFlight = InFlightOperation(kind: .completeChallenge, attemptID: attemptID, amount: intent.amount.minorUnits, startedAt: now)
        return [.callProcessorCompleteChallenge(attemptID: attemptID)]
    }

    /// A failed or abandoned challenge: the attempt failed, the payer may try again.
    mutating func handleChallengeEnded(_ attemptID: String, _ code: FailureCode, _ message: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try requireChallenge(of: attemptID, event: code == .authenticationFailed ? "challenge_failed" : "challenge_abandoned")
        failAttempt(attemptID, PaymentFailure(code: code, message: message, attemptID: attemptID), at: now)
        return []
    }

    private func requireChallenge(of attemptID: String, event: String) throws(PaymentRejection) {
        guard intent.status == .requiresAction else { throw notAllowed(event) }
        guard intent.currentAttemptID == attemptID else { throw reject(.unknownAttempt(attemptID)) }
    }

    /// Records that the answer to the call in flight is unknown (first time only): the
    /// reconciliation grace period counts from here.
    mutating func markOutcomeUnknown(at now: Date) {
        if intent.inFlight?.outcomeUnknownSince == nil { intent.inFlight?.outcomeUnknownSince = now }
    }

    /// A call the processor refused without processing it (HTTP 503, 429): the same call again,
    /// with the same reference, until the retry limit; then `giveUp` decides what failed.
    mutating func retryUnprocessed(_ operation: InFlightOperation, otherwise giveUp: (inout PaymentStateMachine) -> Void) -> [PaymentAction] {
        if operation.processorRetries < policy.maximumProcessorRetries {
            intent.inFlight?.processorRetries += 1
            return [retryCall(operation)]
        }
        giveUp(&self)
        return []
    }

    /// The same call again, with the same reference (the processor's idempotency key).
    func retryCall(_ operation: InFlightOperation) -> PaymentAction {
        switch operation.kind {
        case .authorize: .callProcessorAuthorize(attemptID: operation.attemptID, amount: amount(operation.amount))
        case .completeChallenge: .callProcessorCompleteChallenge(attemptID: operation.attemptID)
        case .capture: .callProcessorCapture(attemptID: operation.attemptID, amount: amount(operation.amount))
        case .void: .voidAuthorization(attemptID: operation.attemptID, reason: operation.voidPurpose == .reversal ? .reversal : .cancel)
        }
    }
}
