import Foundation

// Authorizations and refunds under an idempotency key (Stripe semantics, `IdempotencyStore`),
// including the run that takes a key over from a process that crashed while holding it.
extension CheckoutService {
    /// `authorize` under an idempotency key: a retry with the same key and the same card
    /// summary replays the first outcome (a decline included) instead of opening a second
    /// attempt. The key's parameters never include the card number.
    ///
    /// A key whose first run crashed is taken over once its lease has run out
    /// (`IdempotencyStore.inProgressLease`): the attempt that run opened is resumed — its call
    /// looked up at the processor if it is still unanswered — never authorized a second time.
    public func authorize(_ submission: PaymentSubmission, idempotencyKey: String?) async throws -> IdempotentResponse {
        let summary = CardSummary(submission.method)
        let parameters = JSONValue.orderedObject([
            ("intentId", .string(submission.intentID)), ("source", .string(submission.source.rawValue)),
            ("network", .optional(summary.network?.rawValue)), ("last4", .string(summary.last4)),
            ("expiry", .optional(submission.method.expiry?.description)),
            ("tokenTransactionId", .optional(submission.tokenTransactionID)), ("scenario", .optional(submission.scenario)),
        ])
        return try await idempotency.run(key: idempotencyKey, scope: "payments.authorize", parameters: parameters, clock: clock) { claim in
            if let claim, claim.isRecovery, let attemptID = claim.recoveredResourceID {
                return Self.idempotentResult(try await self.resume(attemptID: attemptID, intentID: submission.intentID))
            }
            return Self.idempotentResult(try await self.authorize(submission, claim: claim))
        }
    }

    /// `refund` under an idempotency key. A key whose first run crashed resumes that run's
    /// refund (looked up, and sent again if the processor never got it) instead of refunding
    /// twice.
    public func refund(_ intentID: String, amount: Int64?, reason: RefundReason?, idempotencyKey: String?) async throws -> IdempotentResponse {
        let parameters = JSONValue.orderedObject([
            ("intentId", .string(intentID)), ("amount", .optional(amount)), ("reason", .optional(reason?.rawValue)),
        ])
        return try await idempotency.run(key: idempotencyKey, scope: "payments.refund", parameters: parameters, clock: clock) { claim in
            if let claim, claim.isRecovery, let refundID = claim.recoveredResourceID {
                return Self.idempotentResult(try await self.resume(refundID: refundID, intentID: intentID))
            }
            return Self.idempotentResult(try await self.refund(intentID, amount: amount, reason: reason, claim: claim))
        }
    }

    /// Where the attempt a crashed run opened stands now: its call, if still waiting for an
    /// answer, is looked up first (the card is gone, so it cannot be sent again).
    func resume(attemptID: String, intentID: String) async throws -> PaymentOutcome {
        if let call = try repository.awaitingCall(intentID: intentID, reference: attemptID) {
            _ = try await lookUp(call, intentID: intentID)
        }
        return try outcome(intentID, attemptID: attemptID)
    }

    /// Where the refund a crashed run reserved stands now, after a lookup if it is pending.
    func resume(refundID: String, intentID: String) async throws -> PaymentOutcome {
        if let call = try repository.awaitingCall(intentID: intentID, reference: refundID) {
            _ = try await lookUp(call, intentID: intentID)
        }
        return try refundOutcome(intentID, refundID: refundID)
    }

    /// How an outcome is stored under an idempotency key and reported: a failed attempt or
    /// refund, a sheet answered with failure, and an unknown outcome are failures (replayed as
    /// such); anything else — approved, captured, waiting for a challenge, a refund accepted
    /// and still pending — is a success.
    public static func idempotentResult(_ outcome: PaymentOutcome) -> IdempotentResult {
        if let refund = outcome.refund, refund.status == .failed {
            return .failed(code: "refund_failed", message: "the refund \(refund.id) failed (\(refund.failureCode ?? "unknown reason"))", body: outcome.json)
        }
        if let attempt = outcome.attempt, attempt.status == .failed, let failure = attempt.failure {
            return .failed(code: failure.code.rawValue, message: failure.message, body: outcome.json)
        }
        if outcome.sheetAnswer == .failure {
            return .failed(
                code: "sheet_deadline_exceeded",
                message: "the Apple Pay sheet was answered with failure at its deadline because the processor had not answered; a late approval will be reversed",
                body: outcome.json)
        }
        if outcome.intent.status == .processing, let inFlight = outcome.intent.inFlight, inFlight.outcomeUnknownSince != nil {
            return .failed(
                code: "outcome_unknown",
                message: "the processor gave no usable answer to the \(inFlight.call.operationName) of \(inFlight.attemptID); the intent stays processing until reconciliation learns the outcome",
                body: outcome.json)
        }
        return .succeeded(outcome.json)
    }
}
