import Foundation
import PayPanel
import PayPanelHTTP

// `POST /v1/checkouts/{id}/challenge {"passed": bool}`: the device's answer to 3-D Secure.
// The merchant's `/v1/payment_intents/{id}/challenge` takes the secret key, which a device
// must never hold; this route takes the checkout's client secret, like `/pay`, and can only
// complete the challenge of that checkout's own intent.
extension CheckoutsAPI {
    func addChallengeRoute(to router: inout Router) {
        router.post("/v1/checkouts/{id}/challenge", credential: ClientSecretCredential(desk: desk)) { [desk, api] context in
            let checkoutID = PaymentsAPI.id(context)
            let body = try RequestBody(context, allowed: ["passed"])
            guard let passed = try body.bool("passed", required: true) else { throw RequestBody.missing("passed") }
            // A tap answered twice (a lost response, a retry) gets the first answer.
            return try await api.idempotent(context, owner: "checkout \(checkoutID)", resume: { attemptID in
                APIResponse.json(try await desk.resume(checkoutID, attemptID: attemptID).json)
            }) { recoveryPoint in
                APIResponse.json(try await desk.answerChallenge(checkoutID, passed: passed, recoveryPoint: recoveryPoint).json)
            }
        }
    }
}
