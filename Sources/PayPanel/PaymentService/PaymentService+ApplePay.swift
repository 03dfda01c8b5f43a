import Foundation

// Paying with an Apple Pay token: what a merchant server does with the PKPaymentToken the
// device sends while the payment sheet waits.
extension PaymentService {
    /// Verifies and decrypts `token` at the service's clock (signature, chain, signing time),
    /// checks it is for exactly the intent's amount and currency, then authorizes the device
    /// PAN with its cryptogram as a new attempt that answers the Apple Pay sheet. The token's
    /// transactionId is recorded in the same transaction that opens the attempt, so a replayed
    /// token is refused and a refused token (forged, mismatched) never uses an id up.
    ///
    /// Under an idempotency key the key is claimed *before* the token is looked at, with
    /// parameters computed from the raw token (its SHA-256, never the token or what it holds):
    /// a retry with the same key replays the first answer without verifying again, so a retry
    /// that comes after the token's signing window still gets that answer rather than "signed
    /// too long ago". A key whose first run failed or crashed after opening its attempt resumes
    /// that attempt.
    ///
    /// Only the network, the last four digits and the expiry are kept; the DPAN and the
    /// cryptogram live in memory for the processor call alone.
    public func authorize(
        applePayToken token: [UInt8], intentID: String, decryptor: ApplePayTokenDecryptor,
        answersPaymentSheet: Bool = true, scenario: String? = nil, idempotencyKey: String? = nil
    ) async throws -> PaymentOutcome {
        let parameters = JSONValue.orderedObject([
            ("intentId", .string(intentID)), ("source", .string(AttemptSource.applePay.rawValue)),
            ("tokenSha256", .string(SHA256.hash(token).hexString)), ("answersPaymentSheet", .bool(answersPaymentSheet)),
            ("scenario", .optional(scenario)),
        ])
        return try await runIdempotently(key: idempotencyKey, scope: "payments.authorize", parameters: parameters) { claim in
            if let claim, claim.isRecovery, let attemptID = claim.recoveredResourceID {
                return try await self.reconciler.resume(attemptID: attemptID, intentID: intentID)
            }
            return try await self.authorize(
                applePayToken: token, intentID: intentID, decryptor: decryptor, answersPaymentSheet: answersPaymentSheet,
                scenario: scenario, recoveryPoint: claim)
        }
    }

    /// Authorizes intent `intentID` with what the payer submitted: a card as it is, an Apple Pay
    /// token once it verifies, decrypts and matches the intent's amount (`ApplePayTokenError`
    /// when it does not: no attempt is opened). `answersPaymentSheet`: a device's sheet waits for
    /// this answer (a checkout's pay), not a merchant's server (a confirm). The attempt is
    /// recorded on `recoveryPoint`, when there is one, as it opens.
    package func authorize(
        _ method: SubmittedPaymentMethod, intentID: String, answersPaymentSheet: Bool, recoveryPoint: IdempotencyClaim?
    ) async throws -> PaymentOutcome {
        switch method {
        case .card(let card):
            try await authorize(
                PaymentSubmission(intentID: intentID, method: card, source: .card, answersPaymentSheet: answersPaymentSheet),
                recoveryPoint: recoveryPoint)
        case .applePayToken(let token, let decryptor):
            try await authorize(
                applePayToken: token, intentID: intentID, decryptor: decryptor, answersPaymentSheet: answersPaymentSheet, scenario: nil,
                recoveryPoint: recoveryPoint)
        }
    }

    /// The token payment itself, recording its attempt on `recoveryPoint` (an idempotency claim
    /// taken before this call) in the transaction that opens it.
    package func authorize(
        applePayToken token: [UInt8], intentID: String, decryptor: ApplePayTokenDecryptor, answersPaymentSheet: Bool,
        scenario: String?, recoveryPoint: IdempotencyClaim?
    ) async throws -> PaymentOutcome {
        let intent = try await executor.loadMachine(intentID).intent
        let decrypted = try await Self.decrypt(token, with: decryptor, at: clock.now())
        try decrypted.checkAmount(matches: intent.amount)
        let submission = PaymentSubmission(
            intentID: intentID, method: try decrypted.paymentMethodData(), source: .applePay, amount: decrypted.amount,
            tokenTransactionID: decrypted.transactionId, answersPaymentSheet: answersPaymentSheet, scenario: scenario)
        return try await authorize(submission, recoveryPoint: recoveryPoint)
    }

    /// Verification and decryption are CPU work (a CMS signature, a certificate chain, ECDH or
    /// RSA, AES-GCM) that needs nothing of the service's state: they run on the global
    /// executor, so the actor keeps serving other payments meanwhile.
    @concurrent
    private nonisolated static func decrypt(
        _ token: [UInt8], with decryptor: ApplePayTokenDecryptor, at date: Date
    ) async throws(ApplePayTokenError) -> DecryptedPaymentToken {
        try decryptor.decrypt(token, at: date)
    }
}
