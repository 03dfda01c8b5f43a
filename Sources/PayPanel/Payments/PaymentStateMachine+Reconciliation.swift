import Foundation

// Reconciliation: calls whose outcome is unknown (timeouts, ambiguous 5xx) are looked up at
// the processor by reference until a lookup is conclusive. An unknown outcome is never taken
// for a failure.
//
// What "not found" leads to depends on whether the call can be sent again. An authorization
// cannot: the card data was only in the memory of the process that received it. So it fails,
// but only after the grace period, because the request can still be in transit while the
// first lookups run. A capture, void or challenge completion needs no card data and the
// processor deduplicates it by reference, so it is simply sent again at once with the same
// reference: a copy still in transit and the new one count once. That is what makes a crash
// between committing such a call and sending it harmless. (Refunds are looked up by the same
// rules, in the `RefundBook`.)
extension PaymentStateMachine {
    mutating func handleLookupFound(_ call: ProcessorCall, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        // A lookup result for a call nothing waits on is rejected.
        _ = try inFlightOperation(answering: call)
        switch outcome {
        case .unknown:
            return try handleInconclusiveLookup(call, at: now)
        case .pending:
            return try handleInconclusiveLookup(call, at: now)
        case .notProcessed:
            // The processor has it as refused before processing: nothing happened.
            return try handleLookupNotFound(call, at: now)
        case .challengeRequired:
            if case .completeChallenge = call {
                // The authorization still waits for its challenge: the completion never
                // arrived. Taking this as the answer would drop a completion still in transit
                // and leave its approval unreflected; send it again instead.
                return try resendAfterLookup(call, at: now)
            }
            return try handleAnswer(call, outcome, at: now)
        case .approved, .declined:
            return try handleAnswer(call, outcome, at: now)
        }
    }

    mutating func handleLookupNotFound(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        _ = try inFlightOperation(answering: call)
        guard case .authorize = call else { return try resendAfterLookup(call, at: now) }
        let operation = try inFlightOperation(answering: call)
        guard now.timeIntervalSince(operation.outcomeUnknownSince ?? operation.startedAt) >= policy.reconciliationGrace else {
            return try handleInconclusiveLookup(call, at: now)
        }
        let attemptID = operation.attemptID
        let message = "the processor has no record of the authorization after \(Int(policy.reconciliationGrace)) s"
        failAttempt(attemptID, PaymentFailure(code: .processorHasNoRecord, message: message, attemptID: attemptID), at: now)
        return []
    }

    /// A call the processor has not processed and that can be sent again (everything but an
    /// authorization): counts as an inconclusive lookup — so a processor that never records
    /// it ends in `requires_merchant_action` — and is sent again with the same reference.
    private mutating func resendAfterLookup(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let work = try handleInconclusiveLookup(call, at: now)
        guard let operation = intent.inFlight, operation.call == call else { return work }  // exhausted
        return work + [retryCall(operation)]
    }

    /// A lookup that settled nothing: count it, and give up after the last one.
    mutating func handleInconclusiveLookup(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let operation = try inFlightOperation(answering: call)
        guard operation.reconciliationLookups + 1 < policy.maximumReconciliationLookups else {
            return try handleReconciliationExhausted(call, at: now)
        }
        intent.inFlight?.reconciliationLookups += 1
        return []
    }

    mutating func handleReconciliationExhausted(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let operation = try inFlightOperation(answering: call)
        requireMerchantAction(PaymentFailure(
            code: .reconciliationExhausted,
            message: "the outcome of \(call.operationName.replacingOccurrences(of: "_", with: " ")) stayed unknown after \(operation.reconciliationLookups + 1) lookups: check the processor and resolve the intent",
            attemptID: operation.attemptID))
        return []
    }

}
