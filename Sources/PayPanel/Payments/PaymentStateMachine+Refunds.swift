import Foundation

// The refund ledger of a succeeded intent. Pending refunds reserve their amount, so the sum
// of pending and succeeded refunds can never pass the captured amount, whatever the order in
// which answers arrive.
extension PaymentStateMachine {
    mutating func handleRefundRequested(_ refundID: String, amount requested: Int64, reason: RefundReason?, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard intent.status == .succeeded, let attemptID = intent.currentAttemptID else { throw notAllowed("refund_requested") }
        guard !refunds.contains(where: { $0.id == refundID }) else { throw reject(.duplicateRefund(refundID)) }
        guard requested > 0 else { throw reject(.refundAmountInvalid(requested: requested, currency: intent.currency)) }
        let refundable = intent.amountRefundable
        guard requested <= refundable else {
            throw reject(.refundExceedsRemainder(requested: requested, refundable: refundable, currency: intent.currency))
        }
        refunds.append(Refund(
            id: refundID, intentID: intent.id, attemptID: attemptID, amount: amount(requested), status: .pending,
            reason: reason, createdAt: now, updatedAt: now))
        intent.amountRefundPending += requested
        return [.callProcessorRefund(refundID: refundID, attemptID: attemptID, amount: amount(requested))]
    }

    /// The pending refund `refundID`, or the rejection saying why there is none.
    func pendingRefund(_ refundID: String) throws(PaymentRejection) -> Refund {
        guard let refund = refunds.first(where: { $0.id == refundID }) else { throw reject(.unknownRefund(refundID)) }
        guard refund.status == .pending else { throw reject(.refundNotPending(refundID)) }
        return refund
    }

    mutating func handleRefundAnswer(_ refundID: String, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let refund = try pendingRefund(refundID)
        switch outcome {
        case .approved(let approval):
            let processorID = SensitiveDigits.redacted(approval.processorID)
            guard approval.amount == refund.amount else {
                updateRefund(refundID, at: now) {
                    $0.status = .requiresMerchantAction
                    $0.processorID = processorID
                    $0.failureCode = FailureCode.amountMismatch.rawValue
                }
                return []
            }
            settleRefund(refundID, succeeded: true, at: now) { $0.processorID = processorID }
            return []
        case .declined(let code):
            settleRefund(refundID, succeeded: false, at: now) { $0.failureCode = code.rawValue }
            return []
        case .challengeRequired:
            throw reject(.unexpectedOutcome(.refund(refundID: refundID), outcome: outcome.eventSuffix))
        case .pending:
            // Accepted; it finishes later. Lookups follow on the reconciliation timer.
            updateRefund(refundID, at: now) { $0.processorAccepted = true }
            return []
        case .unknown:
            updateRefund(refundID, at: now) { $0.outcomeUnknownSince = $0.outcomeUnknownSince ?? now }
            return []
        case .notProcessed:
            if refund.processorRetries < policy.maximumProcessorRetries {
                updateRefund(refundID, at: now) { $0.processorRetries += 1 }
                return [.callProcessorRefund(refundID: refundID, attemptID: refund.attemptID, amount: refund.amount)]
            }
            // The processor could not be reached, or kept refusing before processing: nothing
            // was refunded and nothing was refused. The refund stays pending, its amount
            // reserved, and reconciliation settles it later (a lookup that finds nothing sends
            // it again), never a failure the processor did not give.
            updateRefund(refundID, at: now) { $0.outcomeUnknownSince = $0.outcomeUnknownSince ?? now }
            return []
        }
    }

    /// Makes a refund final and moves its amount out of the reserve: to `amountRefunded` when
    /// it succeeded, back to the refundable remainder when it failed.
    mutating func settleRefund(_ refundID: String, succeeded: Bool, at now: Date, _ change: (inout Refund) -> Void = { _ in }) {
        guard let refund = refunds.first(where: { $0.id == refundID }) else { return }
        updateRefund(refundID, at: now) {
            $0.status = succeeded ? .succeeded : .failed
            change(&$0)
        }
        intent.amountRefundPending -= refund.amount.minorUnits
        if succeeded { intent.amountRefunded += refund.amount.minorUnits }
    }

    /// An operator settles a refund that requires merchant action.
    mutating func resolveRefund(_ refundID: String, succeeded: Bool, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard intent.status == .succeeded else { throw notAllowed("operator_resolved") }
        guard let refund = refunds.first(where: { $0.id == refundID }) else { throw reject(.unknownRefund(refundID)) }
        guard refund.status == .requiresMerchantAction else {
            throw reject(.invalidResolution("refund \(refundID) is \(refund.status.rawValue), not requires_merchant_action"))
        }
        settleRefund(refundID, succeeded: succeeded, at: now)
        return []
    }
}
