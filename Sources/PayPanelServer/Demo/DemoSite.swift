import Foundation
import PayPanel
import PayPanelHTTP

/// The device simulator (test mode only; `serve` adds these routes only with `--test-root`):
///
/// - `GET /demo`, `/demo/demo.css`, `/demo/demo.js`: the page, embedded at build time, with a
///   Content-Security-Policy that allows only this origin's script and style files (no inline
///   script, no outside origin) and `nosniff`.
/// - `GET /demo/session`: the demo key and the test wallet (no card numbers). Same-origin
///   only in effect: no CORS header is sent, so another site's script cannot read it.
/// - `POST /v1/demo/tokens` `{card, amount, currency}`: a sealed test token (demo key only).
public struct DemoSite: APIRouteProvider {
    let key: DemoKey
    let sealing: any DemoTokenSealing

    public init(key: DemoKey, sealing: any DemoTokenSealing) {
        self.key = key
        self.sealing = sealing
    }

    /// The largest amount the demo seals a token for (minor units): far above any demo checkout.
    static let maximumAmount: Int64 = 100_000_000

    public func addRoutes(to router: inout Router) {
        router.get("/demo", credential: .none) { _ in try Self.asset("demo.html") }
        router.get("/demo/demo.css", credential: .none) { _ in try Self.asset("demo.css") }
        router.get("/demo/demo.js", credential: .none) { _ in try Self.asset("demo.js") }
        router.get("/demo/session", credential: .none) { [key, sealing] _ in
            let wallet: [JSONValue] = sealing.wallet.map { card in
                .orderedObject([("id", .string(card.id)), ("network", .string(card.network)),
                                ("last4", .string(card.last4)), ("behaviour", .string(card.behaviour))])
            }
            let body = JSONValue.orderedObject([("object", "demo_session"), ("demo_key", .string(key.value)), ("wallet", .array(wallet))])
            var response = APIResponse.json(body)
            response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
            return response
        }
        // The device's call: the demo key only, never a secret key.
        router.post("/v1/demo/tokens", credential: key.credential(for: .sealTokens)) { [sealing] context in
            let body = try RequestBody(context, allowed: ["card", "amount", "currency"])
            guard let cardID = try body.string("card", required: true) else { throw RequestBody.missing("card") }
            guard sealing.wallet.contains(where: { $0.id == cardID }) else {
                throw APIError.invalid("unknown_card", "no test wallet card \(JSONWriter.quoted(SensitiveDigits.redacted(String(cardID.prefix(40))))): use an id from GET /demo/session", param: "card")
            }
            guard let minorUnits = try body.integer("amount", required: true) else { throw RequestBody.missing("amount") }
            guard (1...Self.maximumAmount).contains(minorUnits) else {
                throw APIError.invalid("amount_out_of_range", "amount must be 1 to \(Self.maximumAmount) (minor units)", param: "amount")
            }
            let code = try body.string("currency") ?? "USD"
            let currency: Currency
            do {
                currency = try Currency(code: String(code.prefix(8)))
            } catch {
                throw APIError.invalid("invalid_currency", "currency must be an ISO 4217 code such as USD: \((error as? any PayPanelError)?.message ?? "not a currency")", param: "currency")
            }
            let token = try sealing.seal(cardID: cardID, amount: Amount(minorUnits: minorUnits, currency: currency))
            return APIResponse.json(.orderedObject([("object", "demo_token"), ("payment_token", token)]))
        }
    }

    /// Every page response's headers: only this origin's files, nothing inline, no framing.
    static let pageHeaders: HTTPHeaders = [
        "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    ]

    static func asset(_ name: String) throws(APIError) -> HTTPResponse {
        guard let text = EmbeddedWebAssets.files[name] else {
            throw APIError(status: .internalServerError, kind: .api, code: "asset_missing", message: "the build embedded no \(name)")
        }
        var headers = pageHeaders
        headers.replaceOrAdd(name: "Content-Type", value: contentType(name))
        return HTTPResponse(status: .ok, headers: headers, body: Array(text.utf8))
    }

    static func contentType(_ name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        return "application/octet-stream"
    }

    /// Undocumented in /openapi.json on purpose for the pages; the token call is documented.
    public var openAPIPaths: [(path: String, item: JSONValue)] { DemoOpenAPI.paths }
}
