import Foundation

/// The refund ledger of a succeeded intent: its refunds, and how much of the captured amount
/// they hold. This is a job of its own beside the intent's payment. Every refund event comes
/// here (`RefundEvent`), so the intent's own transitions never look at a refund.
///
/// Pending refunds reserve their amount, so the sum of pending and succeeded refunds can never
/// pass the captured amount, whatever the order in which answers arrive. A refund whose outcome
/// stays unknown keeps its amount reserved until a lookup or an operator settles it. A refund
/// the processor has no record of is sent again with the same reference: the processor
/// deduplicates by it, so a copy still in transit and the new one count once.
///
/// The machine builds the book from its state for one event and takes the result back
/// (`PaymentStateMachine.applyToRefunds`). The totals are kept on the intent, where they are
/// stored.
struct RefundBook {
    private(set) var refunds: [Refund]
    /// The intent's `amountRefunded`: refunds that succeeded.
    private(set) var refunded: Int64
    /// The intent's `amountRefundPending`: refunds not yet final, whose amount is held.
    private(set) var reserved: Int64
    let intentID: String
    let currency: Currency
    let captured: Int64
    let policy: PaymentPolicy

    /// What a new refund may still take.
    var refundable: Int64 { captured - refunded - reserved }

    // MARK: - The merchant and the processor

    /// A new refund of `requested` minor units, sent back to the captured attempt `attemptID`.
    /// Each method below throws the rejection saying why its event does not apply, and then
    /// nothing changed.
    mutating func request(_ refundID: String, amount requested: Int64, reason: RefundReason?, attemptID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard !refunds.contains(where: { $0.id == refundID }) else { throw reject(.duplicateRefund(refundID)) }
        guard requested > 0 else { throw reject(.refundAmountInvalid(requested: requested, currency: currency)) }
        guard requested <= refundable else {
            throw reject(.refundExceedsRemainder(requested: requested, refundable: refundable, currency: currency))
        }
        let amount = Amount(minorUnits: requested, currency: currency)
        refunds.append(Refund(
            id: refundID, intentID: intentID, attemptID: attemptID, amount: amount, status: .pending,
            reason: reason, createdAt: now, updatedAt: now))
        reserved += requested
        return [.callProcessorRefund(refundID: refundID, attemptID: attemptID, amount: amount)]
    }

    /// The processor answered the refund call.
    mutating func answer(_ refundID: String, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let refund = try pendingRefund(refundID)
        switch outcome {
        case .approved(let approval):
            let processorID = SensitiveDigits.redacted(approval.processorID)
            guard approval.amount == refund.amount else {
                update(refundID, at: now) {
                    $0.status = .requiresMerchantAction
                    $0.processorID = processorID
                    $0.failureCode = FailureCode.amountMismatch.rawValue
                }
                return []
            }
            settle(refundID, succeeded: true, at: now) { $0.processorID = processorID }
            return []
        case .declined(let code):
            settle(refundID, succeeded: false, at: now) { $0.failureCode = code.rawValue }
            return []
        case .challengeRequired:
            throw reject(.unexpectedOutcome(.refund(refundID: refundID), outcome: outcome.eventSuffix))
        case .pending:
            // Accepted; it finishes later. Lookups follow on the reconciliation timer.
            update(refundID, at: now) { $0.processorAccepted = true }
            return []
        case .unknown:
            update(refundID, at: now) { $0.outcomeUnknownSince = $0.outcomeUnknownSince ?? now }
            return []
        case .notProcessed:
            if refund.processorRetries < policy.maximumProcessorRetries {
                update(refundID, at: now) { $0.processorRetries += 1 }
                return [.callProcessorRefund(refundID: refundID, attemptID: refund.attemptID, amount: refund.amount)]
            }
            // The processor could not be reached, or kept refusing before processing: nothing
            // was refunded and nothing was refused. The refund stays pending, its amount
            // reserved, and reconciliation settles it later (a lookup that finds nothing sends
            // it again), never a failure the processor did not give.
            update(refundID, at: now) { $0.outcomeUnknownSince = $0.outcomeUnknownSince ?? now }
            return []
        }
    }

    // MARK: - Reconciliation

    /// A lookup found the refund at the processor with `outcome`.
    mutating func lookupFound(_ refundID: String, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        _ = try pendingRefund(refundID)
        switch outcome {
        case .unknown:
            return try lookupInconclusive(refundID, at: now)
        case .pending:
            update(refundID, at: now) { $0.processorAccepted = true }
            return try lookupInconclusive(refundID, at: now)
        case .notProcessed:
            // The processor has it as refused before processing: nothing happened.
            return try resendAfterLookup(refundID, at: now)
        case .approved, .declined, .challengeRequired:
            return try answer(refundID, outcome, at: now)
        }
    }

    /// A lookup that says the processor has not processed the refund: counts as an inconclusive lookup (so a
    /// processor that never records it ends in `requires_merchant_action`), and is sent again
    /// with the same reference while it is still pending.
    mutating func resendAfterLookup(_ refundID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let work = try lookupInconclusive(refundID, at: now)
        guard let refund = refunds.first(where: { $0.id == refundID }), refund.status == .pending else { return work }
        return work + [.callProcessorRefund(refundID: refundID, attemptID: refund.attemptID, amount: refund.amount)]
    }

    /// A lookup that settled nothing: count it, and give up after the last one.
    mutating func lookupInconclusive(_ refundID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let refund = try pendingRefund(refundID)
        guard refund.reconciliationLookups + 1 < policy.maximumReconciliationLookups else {
            return try reconciliationExhausted(refundID, at: now)
        }
        update(refundID, at: now) { $0.reconciliationLookups += 1 }
        return []
    }

    /// Reconciliation gives up on the refund: an operator decides.
    mutating func reconciliationExhausted(_ refundID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        _ = try pendingRefund(refundID)
        // The amount stays reserved: the refund may have gone through.
        update(refundID, at: now) {
            $0.status = .requiresMerchantAction
            $0.failureCode = FailureCode.reconciliationExhausted.rawValue
        }
        return []
    }

    // MARK: - The operator

    /// An operator settles a refund that requires merchant action.
    mutating func resolve(_ refundID: String, succeeded: Bool, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        guard let refund = refunds.first(where: { $0.id == refundID }) else { throw reject(.unknownRefund(refundID)) }
        guard refund.status == .requiresMerchantAction else {
            throw reject(.invalidResolution("refund \(refundID) is \(refund.status.rawValue), not requires_merchant_action"))
        }
        settle(refundID, succeeded: succeeded, at: now)
        return []
    }

    // MARK: - Helpers

    /// The pending refund `refundID`, or the rejection saying why there is none.
    private func pendingRefund(_ refundID: String) throws(PaymentRejection) -> Refund {
        guard let refund = refunds.first(where: { $0.id == refundID }) else { throw reject(.unknownRefund(refundID)) }
        guard refund.status == .pending else { throw reject(.refundNotPending(refundID)) }
        return refund
    }

    /// Makes a refund final and moves its amount out of the reserve: to `refunded` when it
    /// succeeded, back to the refundable remainder when it failed.
    private mutating func settle(_ refundID: String, succeeded: Bool, at now: Date, _ change: (inout Refund) -> Void = { _ in }) {
        guard let refund = refunds.first(where: { $0.id == refundID }) else { return }
        update(refundID, at: now) {
            $0.status = succeeded ? .succeeded : .failed
            change(&$0)
        }
        reserved -= refund.amount.minorUnits
        if succeeded { refunded += refund.amount.minorUnits }
    }

    /// Changes the refund `refundID` and stamps it.
    private mutating func update(_ refundID: String, at now: Date, _ change: (inout Refund) -> Void) {
        guard let index = refunds.firstIndex(where: { $0.id == refundID }) else { return }
        change(&refunds[index])
        refunds[index].updatedAt = now
    }

    private func reject(_ reason: PaymentRejection.Reason) -> PaymentRejection {
        PaymentRejection(intentID: intentID, reason: reason)
    }
}
