import Foundation

// Reconciliation: calls whose outcome is unknown (timeouts, ambiguous 5xx) are looked up at
// the processor by reference until a lookup is conclusive. An unknown outcome is never taken
// for a failure: only "not found" after the grace period is, because a request can still be
// in transit while the first lookups run.
extension PaymentStateMachine {
    mutating func handleLookupFound(_ call: ProcessorCall, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try requireAwaiting(call)
        switch outcome {
        case .unknown:
            return try handleInconclusiveLookup(call, at: now)
        case .pending:
            if case .refund(let refundID) = call {
                updateRefund(refundID, at: now) { $0.processorAccepted = true }
            }
            return try handleInconclusiveLookup(call, at: now)
        case .notProcessed:
            // The processor has it as refused before processing: nothing happened.
            return try handleLookupNotFound(call, at: now)
        case .approved, .declined, .challengeRequired:
            return try handleAnswer(call, outcome, at: now)
        }
    }

    mutating func handleLookupNotFound(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try requireAwaiting(call)
        if case .refund(let refundID) = call {
            let refund = try pendingRefund(refundID)
            guard now.timeIntervalSince(refund.outcomeUnknownSince ?? refund.createdAt) >= policy.reconciliationGrace else {
                return try handleInconclusiveLookup(call, at: now)
            }
            settleRefund(refundID, succeeded: false, at: now) { $0.failureCode = FailureCode.processorHasNoRecord.rawValue }
            return []
        }
        let operation = try inFlightOperation(answering: call)
        guard now.timeIntervalSince(operation.outcomeUnknownSince ?? operation.startedAt) >= policy.reconciliationGrace else {
            return try handleInconclusiveLookup(call, at: now)
        }
        let attemptID = operation.attemptID
        let message = "the processor has no record of the \(call.operationName.replacingOccurrences(of: "_", with: " ")) after \(Int(policy.reconciliationGrace)) s"
        switch operation.kind {
        case .authorize, .completeChallenge:
            failAttempt(attemptID, PaymentFailure(code: .processorHasNoRecord, message: message, attemptID: attemptID), at: now)
        case .capture:
            backToRequiresCapture(PaymentFailure(code: .captureFailed, message: message + ": capture again or cancel", attemptID: attemptID))
        case .void:
            voidFailed(operation, PaymentFailure(
                code: operation.voidPurpose == .reversal ? .reversalFailed : .voidFailed, message: message, attemptID: attemptID))
        }
        return []
    }

    /// A lookup that settled nothing: count it, and give up after the last one.
    mutating func handleInconclusiveLookup(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try requireAwaiting(call)
        if case .refund(let refundID) = call {
            let refund = try pendingRefund(refundID)
            guard refund.reconciliationLookups + 1 < policy.maximumReconciliationLookups else {
                return try handleReconciliationExhausted(call, at: now)
            }
            updateRefund(refundID, at: now) { $0.reconciliationLookups += 1 }
            return []
        }
        let operation = try inFlightOperation(answering: call)
        guard operation.reconciliationLookups + 1 < policy.maximumReconciliationLookups else {
            return try handleReconciliationExhausted(call, at: now)
        }
        intent.inFlight?.reconciliationLookups += 1
        return []
    }

    mutating func handleReconciliationExhausted(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try requireAwaiting(call)
        if case .refund(let refundID) = call {
            _ = try pendingRefund(refundID)
            // The amount stays reserved: the refund may have gone through.
            updateRefund(refundID, at: now) {
                $0.status = .requiresMerchantAction
                $0.failureCode = FailureCode.reconciliationExhausted.rawValue
            }
            return []
        }
        let operation = try inFlightOperation(answering: call)
        requireMerchantAction(PaymentFailure(
            code: .reconciliationExhausted,
            message: "the outcome of \(call.operationName.replacingOccurrences(of: "_", with: " ")) stayed unknown after \(operation.reconciliationLookups + 1) lookups: check the processor and resolve the intent",
            attemptID: operation.attemptID))
        return []
    }

    /// Rejects a lookup result for a call nothing waits on.
    private func requireAwaiting(_ call: ProcessorCall) throws(PaymentRejection) {
        if case .refund(let refundID) = call {
            _ = try pendingRefund(refundID)
        } else {
            _ = try inFlightOperation(answering: call)
        }
    }
}
