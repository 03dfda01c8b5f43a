import Foundation

// The device's answer to a 3-D Secure challenge: `POST /v1/checkouts/{id}/challenge`.
//
// `/pay` answers `authentication_required` when the bank asks for 3-D Secure; the intent then
// waits in `requires_action`. The merchant's `/v1/payment_intents/{id}/challenge` needs the
// secret key, which a device must never hold, so the device answers through its checkout with
// the client secret instead: this call can complete the challenge of this checkout's own
// intent and nothing else. The challenge is still inside the attempt's sheet budget: an answer
// after the sheet deadline finds the sheet already told "failure", and a late approval is
// reversed like any other (docs/checkouts.md).
extension CheckoutDesk {
    /// Completes the 3-D Secure challenge of the checkout's intent (`passed`: the cardholder
    /// passed it) and answers as `/pay` does: success (the checkout is paid) or failure with a
    /// payer-safe error, the checkout open for another card. Refused (thrown): an unknown or
    /// closed checkout, no challenge waiting, or another call of this checkout in flight.
    public func answerChallenge(_ checkoutID: String, passed: Bool) async throws -> CheckoutPayment {
        try await answerChallenge(checkoutID, passed: passed, recoveryPoint: nil)
    }

    /// `answerChallenge`, recording the attempt on `recoveryPoint` (the request's idempotency
    /// claim) with the answer; a request that takes the key over calls `resume(_:attemptID:)`.
    package func answerChallenge(_ checkoutID: String, passed: Bool, recoveryPoint: IdempotencyClaim?) async throws -> CheckoutPayment {
        let checkout = try await require(checkoutID)
        guard checkout.status == .open else { throw CheckoutError(.notOpen(id: checkoutID, status: checkout.status)) }
        guard let intentID = checkout.paymentIntentID, try await service.details(intentID)?.intent.status == .requiresAction else {
            throw CheckoutError(.noChallenge(id: checkoutID))
        }
        guard paying.insert(checkoutID).inserted else {
            throw CheckoutError(.paymentInProgress(id: checkoutID, intentID: intentID))
        }
        defer { paying.remove(checkoutID) }
        let outcome = try await service.completeChallenge(intentID, result: passed ? .passed : .failed, recoveryPoint: recoveryPoint)
        return try await finish(checkout, outcome: outcome)
    }
}
