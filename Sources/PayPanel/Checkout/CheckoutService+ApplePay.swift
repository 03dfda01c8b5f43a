import Foundation

// Paying with an Apple Pay token: what a merchant server does with the PKPaymentToken the
// device sends while the payment sheet waits.
extension CheckoutService {
    /// Verifies and decrypts `token` at the service's clock (signature, chain, signing time),
    /// checks it is for exactly the intent's amount and currency, then authorizes the device
    /// PAN with its cryptogram as a new attempt that answers the Apple Pay sheet. The token's
    /// transactionId is recorded in the same transaction that opens the attempt, so a replayed
    /// token is refused and a refused token (forged, mismatched) never uses an id up.
    ///
    /// Only the network, the last four digits and the expiry are kept; the DPAN and the
    /// cryptogram live in memory for the processor call alone.
    public func authorize(
        applePayToken token: [UInt8], intentID: String, decryptor: ApplePayTokenDecryptor,
        answersPaymentSheet: Bool = true, scenario: String? = nil, idempotencyKey: String? = nil
    ) async throws -> PaymentOutcome {
        let intent = try loadMachine(intentID).intent
        let decrypted = try decryptor.decrypt(token, at: clock.now())
        try decrypted.checkAmount(matches: intent.amount)
        let submission = PaymentSubmission(
            intentID: intentID, method: try decrypted.paymentMethodData(), source: .applePay, amount: decrypted.amount,
            tokenTransactionID: decrypted.transactionId, answersPaymentSheet: answersPaymentSheet, scenario: scenario)
        return try await authorize(submission, idempotencyKey: idempotencyKey)
    }
}
