import Foundation

// Operator resolutions of an intent: the ways out of requires_merchant_action (DESIGN §4, "no
// dead ends"). A refund that requires merchant action is settled by the `RefundBook`.
//
// The operator says what happened (`IntentResolution`); the record says what the processor's
// ledger held for the current attempt when they did (`ProcessorHolding`). A resolution the
// ledger contradicts is refused unless it is forced, and the amounts come from the ledger,
// not from the operator:
//
// - authorized: the processor's authorization (amount, id, expiry) is recorded; capture_before
//   is 7 days from when the attempt was opened (the authorization cannot be older), cut to the
//   processor's expiry, exactly as for an approval. Manual capture waits in requires_capture
//   with its expiry timer; automatic capture is captured at once, as after an approval.
// - succeeded: captured = what the processor captured; forced without a capture on record,
//   the authorized amount (the attempt's amount if nothing was authorized here).
// - canceled: reason `operator`. An authorization the processor still holds is recorded and
//   voided first, like a merchant's cancel: canceled once the void succeeds, requires_capture
//   (the authorization stands) if it is refused.
// - retry: the attempt ends (failed, or voided if the processor voided it), last_error says an
//   operator reopened the intent, and the payer may pay again.
extension PaymentStateMachine {
    mutating func resolveIntent(_ choice: IntentResolution, _ record: OperatorRecord, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard intent.status == .requiresMerchantAction else { throw notAllowed("operator_resolved") }
        guard let index = currentAttemptIndex else { throw reject(.invalidResolution("it has no attempt to resolve")) }
        let attempt = attempts[index]
        let holding = record.processor ?? .unknown(reason: "the processor was not asked")
        if !record.forced && !holding.allows(choice) {
            throw reject(.resolutionContradictsProcessor(choice, processor: holding.summary(attemptID: attempt.id), consistent: holding.allowedResolutions))
        }
        switch choice {
        case .authorized:
            var held: HeldAuthorization?
            if case .authorization(let authorization) = holding { held = authorization }
            let captureBefore = try recordAuthorization(of: attempt, held, at: now)
            guard captureBefore > now else {
                throw reject(.invalidResolution("the authorization could only be captured before \(Timestamp.format(captureBefore)): it has lapsed, so resolve the intent as canceled"))
            }
            intent.lastError = nil
            switch intent.captureMethod {
            case .manual:
                intent.status = .requiresCapture
                return []
            case .automatic:
                intent.status = .processing
                intent.inFlight = InFlightOperation(kind: .capture, attemptID: attempt.id, amount: intent.amountAuthorized, startedAt: now)
                return [.callProcessorCapture(attemptID: attempt.id, amount: amount(intent.amountAuthorized))]
            }
        case .succeeded:
            var captured = amount(intent.amountAuthorized > 0 ? intent.amountAuthorized : attempt.amount.minorUnits)
            if case .captured(let atProcessor) = holding { captured = atProcessor }
            let capturedAmount = try resolvedAmount(captured, "captured amount")
            updateAttempt(attempt.id, at: now) { $0.status = .captured }
            intent.amountAuthorized = max(intent.amountAuthorized, capturedAmount)
            intent.amountCaptured = capturedAmount
            intent.lastError = nil
            intent.status = .succeeded
            return []
        case .canceled:
            if case .authorization(let held) = holding {
                _ = try recordAuthorization(of: attempt, held, at: now)
                // As a merchant's cancel: the reason waits with the void.
                intent.cancellationReason = .operator
                intent.lastError = nil
                intent.status = .processing
                intent.inFlight = InFlightOperation(
                    kind: .void, attemptID: attempt.id, amount: intent.amountAuthorized, voidPurpose: .cancel, startedAt: now)
                return [.voidAuthorization(attemptID: attempt.id, reason: .cancel)]
            }
            endAttempt(attempt.id, holding, PaymentFailure(
                code: .resolvedByOperator, message: "an operator canceled the intent (\(holding.summary(attemptID: attempt.id)))",
                attemptID: attempt.id), at: now)
            intent.cancellationReason = .operator
            intent.lastError = nil
            intent.status = .canceled
            return []
        case .retry:
            guard intent.attemptCount < policy.maximumAttempts else {
                throw reject(.invalidResolution("it already had \(policy.maximumAttempts) attempts, the most allowed, so the payer cannot pay again: resolve it as canceled"))
            }
            let failure = PaymentFailure(
                code: .resolvedByOperator,
                message: "an operator reopened the intent for another payment method (\(holding.summary(attemptID: attempt.id)))",
                attemptID: attempt.id)
            endAttempt(attempt.id, holding, failure, at: now)
            intent.amountAuthorized = 0
            intent.captureBefore = nil
            intent.lastError = failure
            intent.status = .requiresPaymentMethod
            return []
        }
    }

    /// Records the authorization the processor holds for `attempt` (`held`; nil when a forced
    /// resolution has no record of it: the attempt's amount, no processor expiry) and returns
    /// its capture deadline: 7 days from the attempt's opening, cut to the processor's expiry.
    private mutating func recordAuthorization(of attempt: Attempt, _ held: HeldAuthorization?, at now: Date) throws(PaymentRejection) -> Date {
        let authorized = try resolvedAmount(held?.amount ?? attempt.amount, "authorized amount")
        var captureBefore = attempt.createdAt.addingTimeInterval(policy.captureWindow)
        if let expiresAt = held?.expiresAt, expiresAt < captureBefore { captureBefore = expiresAt }
        updateAttempt(attempt.id, at: now) {
            $0.status = .authorized
            if let held {
                $0.approvedAmount = held.amount
                $0.processorID = held.processorID ?? $0.processorID
            }
        }
        intent.amountAuthorized = authorized
        intent.captureBefore = captureBefore
        return captureBefore
    }

    /// Ends an attempt that is still open: voided when the processor voided it, failed otherwise.
    private mutating func endAttempt(_ attemptID: String, _ holding: ProcessorHolding, _ failure: PaymentFailure, at now: Date) {
        updateAttempt(attemptID, at: now) {
            guard [.authorizing, .requiresAction, .authorized].contains($0.status) else { return }
            if holding == .voided {
                $0.status = .voided
            } else {
                $0.status = .failed
                $0.failure = failure
            }
        }
    }

    /// An amount from the ledger (or the forced default), checked: in the intent's currency,
    /// above zero, at most the intent's amount.
    private func resolvedAmount(_ value: Amount, _ what: String) throws(PaymentRejection) -> Int64 {
        guard value.currency == intent.currency, value.minorUnits > 0, value.minorUnits <= intent.amount.minorUnits else {
            throw reject(.invalidResolution(
                "the \(what) \(value) must be in \(intent.currency.code), above zero and at most the intent's \(intent.amount); check the processor, then resolve it another way"))
        }
        return value.minorUnits
    }
}
