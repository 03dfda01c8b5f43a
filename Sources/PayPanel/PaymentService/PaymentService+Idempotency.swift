import Foundation

// Authorizations and refunds under an idempotency key (Stripe semantics, `IdempotencyStore`),
// including the run that takes a key over from a run that failed or crashed after starting.
extension PaymentService {
    /// `authorize` under an idempotency key: a retry with the same key and the same card
    /// summary replays the first outcome (a decline included) instead of opening a second
    /// attempt. The key's parameters never include the card number.
    ///
    /// A key whose first run failed after opening its attempt (the answer could not be written)
    /// is taken over by the next call at once, one whose run crashed once its lease has run out
    /// (`IdempotencyStore.inProgressLease`): the attempt that run opened is resumed — its call
    /// looked up at the processor if it is still unanswered — never authorized a second time.
    public func authorize(_ submission: PaymentSubmission, idempotencyKey: String?) async throws -> PaymentOutcome {
        let summary = CardSummary(submission.method)
        let parameters = JSONValue.orderedObject([
            ("intentId", .string(submission.intentID)), ("source", .string(submission.source.rawValue)),
            ("network", .optional(summary.network?.rawValue)), ("last4", .string(summary.last4)),
            ("expiry", .optional(submission.method.expiry?.description)),
            ("tokenTransactionId", .optional(submission.tokenTransactionID)), ("scenario", .optional(submission.scenario)),
        ])
        return try await runIdempotently(key: idempotencyKey, scope: "payments.authorize", parameters: parameters) { claim in
            if let claim, claim.isRecovery, let attemptID = claim.recoveredResourceID {
                return try await self.reconciler.resume(attemptID: attemptID, intentID: submission.intentID)
            }
            return try await self.authorize(submission, recoveryPoint: claim)
        }
    }

    /// `refund` under an idempotency key. A key whose first run failed or crashed after
    /// reserving its refund resumes that refund (looked up, and sent again if the processor
    /// never got it) instead of refunding twice.
    public func refund(_ intentID: String, amount: Int64?, reason: RefundReason?, idempotencyKey: String?) async throws -> PaymentOutcome {
        let parameters = JSONValue.orderedObject([
            ("intentId", .string(intentID)), ("amount", .optional(amount)), ("reason", .optional(reason?.rawValue)),
        ])
        return try await runIdempotently(key: idempotencyKey, scope: "payments.refund", parameters: parameters) { claim in
            if let claim, claim.isRecovery, let refundID = claim.recoveredResourceID {
                return try await self.reconciler.resume(refundID: refundID, intentID: intentID)
            }
            return try await self.refund(intentID, amount: amount, reason: reason, recoveryPoint: claim)
        }
    }

    /// Creates an intent under an idempotency key: a retry with the same key and parameters
    /// returns the first intent (as it was then), with `replayed` set; other parameters are
    /// refused (`idempotency_key_reused`). The key check and the creation are one transaction.
    public func createIntent(_ request: NewPaymentIntent, idempotencyKey: String?) throws -> CreatedIntent {
        let now = clock.now()
        var members: [(String, JSONValue)] = [
            ("amount", .number(request.amount.minorUnits)), ("currency", .string(request.amount.currency.code)),
            ("captureMethod", .string(request.captureMethod.rawValue)), ("orderReference", .optional(request.orderReference)),
        ]
        // Only when there is some: a key stored before metadata existed keeps its request hash.
        if !request.metadata.isEmpty { members.append(("metadata", request.metadata.json)) }
        let parameters = JSONValue.orderedObject(members)
        let id = random.make(.intent)
        var created: PaymentIntent?
        let response = try idempotency.perform(key: idempotencyKey, scope: "payments.create", parameters: parameters, at: now) { transaction in
            let intent = try ledger.create(request, id: id, at: now, in: transaction)
            created = intent
            return .succeeded(.intent(intent))
        }
        if let created, !response.replayed { return CreatedIntent(intent: created, replayed: false, firstUsedAt: now) }
        let intent: PaymentIntent
        switch response.result {
        case .succeeded(.intent(let stored)): intent = stored
        // A key stored before results were typed holds the intent's JSON snapshot.
        case .succeeded(.version0(let body)): intent = try PaymentIntent(snapshot: body)
        default: throw PaymentSnapshotError(object: "payment intent", field: "result")
        }
        return CreatedIntent(intent: intent, replayed: true, firstUsedAt: response.firstUsedAt)
    }

    /// Runs `body` under the key (`IdempotencyStore.run`), storing its outcome's typed parts,
    /// and returns the outcome: the fresh one, or the stored one marked replayed.
    func runIdempotently(
        key: String?, scope: String, parameters: JSONValue, _ body: (IdempotencyClaim?) async throws -> PaymentOutcome
    ) async throws -> PaymentOutcome {
        var fresh: PaymentOutcome?
        let response = try await idempotency.run(key: key, scope: scope, parameters: parameters, clock: clock) { claim in
            let outcome = try await body(claim)
            fresh = outcome
            return Self.idempotentResult(outcome)
        }
        if let fresh, !response.replayed { return fresh }
        switch response.result.payload {
        case .outcome(let intent, let attempt, let refund)?:
            return PaymentOutcome(replayOf: intent, attempt: attempt, refund: refund, firstUsedAt: response.firstUsedAt)
        // A key stored before results were typed holds the outcome's JSON snapshot.
        case .version0(let stored)?:
            return try PaymentOutcome(replayOf: stored, firstUsedAt: response.firstUsedAt)
        default:
            throw PaymentSnapshotError(object: "outcome", field: "body")
        }
    }

    /// How an outcome is stored under an idempotency key: its intent, attempt and refund, as a
    /// failure when `failureReport` says so (replayed as such).
    package static func idempotentResult(_ outcome: PaymentOutcome) -> IdempotentResult {
        let payload = IdempotentPayload.outcome(intent: outcome.intent, attempt: outcome.attempt, refund: outcome.refund)
        if let failure = outcome.failureReport {
            return .failed(code: failure.code, message: failure.message, payload: payload)
        }
        return .succeeded(payload)
    }
}

/// A created intent, fresh or replayed under its idempotency key.
public struct CreatedIntent: Sendable {
    public let intent: PaymentIntent
    public let replayed: Bool
    /// When the key was first used (now, for a fresh creation).
    public let firstUsedAt: Date
}
