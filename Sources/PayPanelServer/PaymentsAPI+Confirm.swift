import Foundation
import PayPanel
import PayPanelHTTP

// `POST /v1/payment_intents/{id}/confirm`: the merchant's server pays an intent with a card,
// or with the Apple Pay token its app received from the sheet (`type: apple_pay`). The token is
// verified and decrypted exactly as on the device's `/pay` (same merchant keys, same trust:
// Apple Root CA - G3, or PayPanel's test root only under `serve --test-root`).

extension PaymentsAPI {
    /// What a confirm pays with, parsed before any work (a malformed body stores no idempotency
    /// key): `payment_method: {type: "card", …}` or `{type: "apple_pay", token: {…PKPaymentToken…}}`.
    static func confirmMethod(_ body: RequestBody, decryptor: ApplePayTokenDecryptor?) throws(APIError) -> SubmittedPaymentMethod {
        guard let method = body.value("payment_method") else { throw RequestBody.missing("payment_method") }
        guard method["type"]?.stringValue == "apple_pay" else { return .card(try card(body)) }
        guard let wrapped = try body.object("payment_method", allowed: ["type", "token"], required: true) else {
            throw RequestBody.missing("payment_method")
        }
        guard let token = wrapped.object["token"], token != .null else { throw RequestBody.missing("payment_method[token]") }
        guard case .object = token else { throw RequestBody.wrongType("payment_method[token]", "an object (the PKPaymentToken)", token) }
        guard let decryptor else {
            throw APIError.invalid(
                "apple_pay_not_configured",
                "this server has no Apple Pay merchant keys: start paypanel serve with --merchant-cert/--merchant-key (or --test-root for PayPanel's test tokens), or pay with a card",
                param: "payment_method[token]")
        }
        return .applePayToken(Array(JSONWriter.string(token).utf8), decryptor: decryptor)
    }

    /// Authorizes intent `id` with `method`, its attempt recorded on `recoveryPoint` (the
    /// request's idempotency claim) as it opens. A token that does not verify, decrypt or match
    /// the intent's amount is a 400 naming the token (no attempt is opened for it).
    func confirm(_ id: String, with method: SubmittedPaymentMethod, recoveryPoint: IdempotencyClaim?) async throws -> PaymentOutcome {
        do {
            // The merchant's confirm is not the sheet's budget: that is the checkout's /pay.
            return try await service.authorize(method, intentID: id, answersPaymentSheet: false, recoveryPoint: recoveryPoint)
        } catch let error as ApplePayTokenError {
            throw Self.tokenRefusal(error)
        }
    }

    /// The 400 of a refused token; a chain that ends at PayPanel's test root says how to accept it.
    static func tokenRefusal(_ error: ApplePayTokenError) -> APIError {
        var message = error.message
        if case .rootNotTrusted = error {
            message += "; a token sealed by PayPanel's test identity is accepted only when paypanel serve runs with --test-root (never in production)"
        }
        return APIError.invalid(error.code, message, param: "payment_method[token]")
    }
}
