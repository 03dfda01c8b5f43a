import Foundation
import PayPanel
import PayPanelHTTP

/// `/v1/checkouts`: the payment-action notification as a resource (`CheckoutDesk`), and the
/// device's pay call. Merchants use their secret key for everything but `/pay` and
/// `/challenge`; the device uses the checkout's client secret (`ClientSecretCredential`),
/// which can pay that one checkout and do nothing else.
public struct CheckoutsAPI: APIRouteProvider {
    let desk: CheckoutDesk
    let api: PaymentsAPI
    /// Verifies and decrypts Apple Pay tokens for `/pay`; nil when the server has no
    /// merchant keys (tokens are then refused, cards still work).
    let decryptor: ApplePayTokenDecryptor?
    /// Pushes a checkout to the device named at creation (`"device": "dev_…"`), and its
    /// updates with the same collapse id (`CheckoutPushes`); nil: no device may be named.
    let pushes: PushOutbox?

    package init(desk: CheckoutDesk, api: PaymentsAPI, decryptor: ApplePayTokenDecryptor?, pushes: PushOutbox? = nil) {
        self.desk = desk
        self.api = api
        self.decryptor = decryptor
        self.pushes = pushes
    }

    public func addRoutes(to router: inout Router) {
        let pushes = CheckoutPushes(outbox: pushes)
        router.post("/v1/checkouts", credential: api.secretKey(orDemoKeyWith: .createCheckouts)) { [desk, api] context in
            let (json, deviceID) = try Self.bodyAndDevice(context)
            return try await api.idempotent(context) {
                // A device that cannot be pushed to is refused before the checkout exists.
                if let deviceID { try await pushes.checkDevice(deviceID) }
                let created = try await desk.create(json: json)
                // The demo page may read back only what it created.
                if let demo = context.principal(as: DemoCaller.self) { await demo.key.remember(created.checkout.id) }
                guard let deviceID else { return APIResponse.json(created.json) }
                return APIResponse.json(CheckoutPushes.adding(try await pushes.push(created.checkout, to: deviceID), to: created.json))
            }
        }
        router.get("/v1/checkouts/{id}", credential: api.secretKey(orDemoKeyWith: .readOwnCheckouts)) { [desk] context in
            guard let checkout = try await desk.checkout(PaymentsAPI.id(context)) else {
                throw APIError.missing("checkout", PaymentsAPI.id(context))
            }
            return APIResponse.json(CheckoutPushes.adding(try await pushes.latest(checkout.id), to: checkout.apiJSON()))
        }
        router.post("/v1/checkouts/{id}", credential: api.secretKey) { [desk, api] context in
            let json = try Self.body(context)
            return try await api.idempotent(context) {
                let updated = try await desk.update(PaymentsAPI.id(context), json: json)
                // The same device as the first push, the same collapse id: the panel is replaced.
                return APIResponse.json(CheckoutPushes.adding(try await pushes.pushUpdate(updated), to: updated.apiJSON()))
            }
        }
        router.post("/v1/checkouts/{id}/cancel", credential: api.secretKey) { [desk, api] context in
            _ = try RequestBody(context, allowed: [])
            return try await api.idempotent(context) {
                APIResponse.json(try await desk.cancel(PaymentsAPI.id(context)).apiJSON())
            }
        }
        router.post("/v1/checkouts/{id}/pay", credential: ClientSecretCredential(desk: desk)) { [desk, api, decryptor] context in
            let checkoutID = PaymentsAPI.id(context)
            let body = try RequestBody(context, allowed: ["amount", "payment_token", "card"])
            guard let amount = try body.integer("amount", required: true) else { throw RequestBody.missing("amount") }
            let method = try Self.method(body, context: context, decryptor: decryptor)
            // The device retries a pay whose answer it lost with the same key: it gets the first
            // answer instead of a second attempt. Its keys are the checkout's own.
            return try await api.idempotent(context, owner: "checkout \(checkoutID)", resume: { attemptID in
                APIResponse.json(try await desk.resume(checkoutID, attemptID: attemptID).json)
            }) { recoveryPoint in
                // The sheet's verdict is in the body: 200 even for "failure".
                APIResponse.json(try await desk.pay(checkoutID, amount: amount, method: method, recoveryPoint: recoveryPoint).json)
            }
        }
        addChallengeRoute(to: &router)
    }

    /// The create body without `device`, and the device to push to.
    static func bodyAndDevice(_ context: RequestContext) throws(APIError) -> (JSONValue, String?) {
        let body = try RequestBody(context, allowed: Set(CheckoutParameters.keys + [CheckoutPushes.deviceKey]))
        let deviceID = try body.string(CheckoutPushes.deviceKey)
        var object = body.object
        object[CheckoutPushes.deviceKey] = nil
        return (.object(object), deviceID)
    }

    /// The whole JSON body for the desk's own reader (which reports every violation at once).
    static func body(_ context: RequestContext) throws(APIError) -> JSONValue {
        let body = try RequestBody(context, allowed: Set(CheckoutParameters.keys))
        return .object(body.object)
    }

    /// `payment_token` (the PKPaymentToken object) or `card`, exactly one.
    static func method(_ body: RequestBody, context: RequestContext, decryptor: ApplePayTokenDecryptor?) throws -> SubmittedPaymentMethod {
        let token = body.value("payment_token")
        let card = body.value("card")
        switch (token, card) {
        case (let token?, nil):
            guard case .object = token else { throw RequestBody.wrongType("payment_token", "an object", token) }
            guard let decryptor else {
                throw APIError.invalid(
                    "apple_pay_not_configured", "this server has no Apple Pay merchant keys: pay with a card, or configure the merchant certificate and key",
                    param: "payment_token")
            }
            return .applePayToken(Array(JSONWriter.string(token).utf8), decryptor: decryptor)
        case (nil, .some):
            let wrapped = RequestBody(object: JSONObject([(key: "payment_method", value: Self.cardAsPaymentMethod(card!))]))
            return .card(try PaymentsAPI.card(wrapped))
        default:
            throw APIError.invalid("parameter_missing", "give exactly one of payment_token (Apple Pay) or card (Pay in app)")
        }
    }

    /// `card: {number, exp_month, exp_year, holder_name}` in the shape of a confirm's payment method.
    private static func cardAsPaymentMethod(_ card: JSONValue) -> JSONValue {
        guard case .object(var object) = card else { return card }
        object["type"] = "card"
        return .object(object)
    }

    public var openAPIPaths: [(path: String, item: JSONValue)] { CheckoutsOpenAPI.paths }
}
