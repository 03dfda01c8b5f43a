import PayPanel

/// The OpenAPI path items of `/v1/checkouts` (merged into /openapi.json by `CheckoutsAPI`).
enum CheckoutsOpenAPI {
    typealias Doc = OpenAPIDocument

    /// The body of a create (`device` included) or an update (without it). Each field carries
    /// the rule the server checks on it alone; the rules across fields (the default segment
    /// within the options, an expiry after now, the push payload within 4096 bytes) are in the
    /// descriptions and answered with a 400 that lists every violation.
    static func parameters(create: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "merchant_identifier": Doc.string(
                "reverse-DNS, dot-separated labels of letters, digits, '-' and '_', such as merchant.com.example.shop (default: the seed panel's)",
                length: 3...128, pattern: "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)+$"),
            "merchant_name": Doc.text("shown on the sheet as 'Pay <name>'", length: 1...64),
            "country": .orderedObject([("type", "string"), ("enum", .array(Country.all.map { .string($0.alpha2) })),
                                       ("description", "ISO 3166-1 alpha-2, upper case")]),
            "currency": Doc.currency,
            "supported_networks": Doc.list(Doc.enumeration(PaymentNetwork.allCases.map(\.rawValue)), count: 1...PaymentNetwork.allCases.count, unique: true),
            "merchant_capabilities": .orderedObject([
                ("type", "array"), ("items", Doc.enumeration(MerchantCapabilities.acceptedNames)), ("minItems", 1),
                ("maxItems", .number(MerchantCapabilities.acceptedNames.count)), ("uniqueItems", true),
                ("contains", Doc.enumeration(MerchantCapabilities.threeDSecureNames)),
                ("description", "3-D Secure is required (supports3DS); EMV alone only when chinaUnionPay is the only network"),
            ]),
            "product_label": Doc.text("the summary item's label", length: 1...64),
            "amount_options": Doc.list(Doc.integer("minor units", 1...Amount.maximumTotalMajorUnits), count: 1...PanelConfig.maximumAmountOptions, unique: true),
            "default_segment": Doc.integer("1-based segment selected at first: at most the number of amount_options", 1...Int64(PanelConfig.maximumAmountOptions)),
            "order_reference": Doc.text("your order", length: 1...200),
            "expires_at": Doc.integer("Unix seconds, after now; default 24 h after creation", 1...253_402_300_799),
            "capture_method": Doc.enumeration(CaptureMethod.allCases.map(\.rawValue)),
            "metadata": .orderedObject([("anyOf", .array([
                OpenAPISchemas.ref("Metadata"),
                .orderedObject([("const", ""), ("description", "on update: remove every key (a key set to \"\" is removed)")]),
            ]))]),
        ]
        if create {
            fields["device"] = Doc.string("dev_… to push the checkout to (POST /v1/devices); updates go to the same device, same collapse id", length: 1...255)
        }
        return Doc.schema(fields)
    }

    static var paths: [(path: String, item: JSONValue)] {
        [
            ("/v1/checkouts", Doc.item([
                "post": Doc.operation(
                    "Create a checkout (every field defaults to the seed panel: {} gives 5/10/20 USD); the only response with its client_secret.",
                    body: parameters(create: true), responses: ["200": "checkout with client_secret, payment_requests and push_payload", "400": "every violation"], returns: OpenAPISchemas.ref("Checkout")),
            ])),
            ("/v1/checkouts/{id}", Doc.item([
                "get": Doc.operation("Retrieve a checkout.", path: true, responses: ["200": "checkout", "404": "unknown"], returns: OpenAPISchemas.ref("Checkout")),
                "post": Doc.operation("Update an open checkout's options: a new payload for the same thread.", path: true,
                                      body: parameters(create: false), responses: ["200": "checkout", "409": "not open"], returns: OpenAPISchemas.ref("Checkout")),
            ])),
            ("/v1/checkouts/{id}/cancel", Doc.item([
                "post": Doc.operation("Cancel an open checkout.", path: true, body: Doc.schema([:]), responses: ["200": "checkout"], returns: OpenAPISchemas.ref("Checkout")),
            ])),
            ("/v1/checkouts/{id}/pay", Doc.item([
                "post": Doc.operation(
                    "The device's call, authorized by the checkout's client_secret (Bearer): pay one of the amount options with an Apple Pay token or a card. Answers within the sheet's 25 s budget.",
                    path: true,
                    body: Doc.schema([
                        "amount": Doc.integer("one of the checkout's amount_options", 1...Amount.maximumTotalMajorUnits),
                        "payment_token": .orderedObject([("type", "object"), ("description", "the PKPaymentToken as the device got it")]),
                        "card": Doc.card(typed: false),
                    ], required: ["amount"]),
                    responses: ["200": "{sheet: success|failure, status, payment_intent, error?} (failure is 200 too; Idempotency-Key replays it)", "401": "not this checkout's client secret"], returns: OpenAPISchemas.ref("SheetAnswer")),
            ])),
            ("/v1/checkouts/{id}/challenge", Doc.item([
                "post": Doc.operation(
                    "The device's answer to 3-D Secure, authorized by the checkout's client_secret (Bearer): after /pay answered authentication_required, complete the challenge of this checkout's intent (passed or failed). Answers like /pay.",
                    path: true,
                    body: Doc.schema(["passed": .orderedObject([("type", "boolean")])], required: ["passed"]),
                    responses: ["200": "{sheet: success|failure, status, payment_intent, error?} (failure is 200 too)", "401": "not this checkout's client secret",
                                "409": "no challenge waiting, checkout not open, or another call in flight"], returns: OpenAPISchemas.ref("SheetAnswer")),
            ])),
        ]
    }
}
