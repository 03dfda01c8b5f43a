import PayPanel

/// The OpenAPI path items of `/v1/checkouts` (merged into /openapi.json by `CheckoutsAPI`).
enum CheckoutsOpenAPI {
    typealias Doc = OpenAPIDocument

    static var parameters: JSONValue {
        Doc.schema([
            "merchant_identifier": Doc.string("merchant.… (default: the seed panel's)"), "merchant_name": Doc.string("shown on the sheet"),
            "country": Doc.string("ISO 3166-1 alpha-2"), "currency": Doc.string("ISO 4217, upper case"),
            "supported_networks": .orderedObject([("type", "array"), ("items", Doc.string("a PassKit network name"))]),
            "merchant_capabilities": .orderedObject([("type", "array"), ("items", Doc.string("supports3DS, …"))]),
            "product_label": Doc.string("the summary item's label"),
            "amount_options": .orderedObject([("type", "array"), ("items", Doc.integer("minor units"))]),
            "default_segment": Doc.integer("1-based segment selected at first"), "order_reference": Doc.string("your order"),
            "expires_at": Doc.integer("Unix seconds; default 24 h after creation"),
            "capture_method": Doc.enumeration(["automatic", "manual"]),
            "metadata": .orderedObject([("anyOf", .array([
                OpenAPISchemas.ref("Metadata"),
                .orderedObject([("const", ""), ("description", "on update: remove every key (a key set to \"\" is removed)")]),
            ]))]),
            "device": Doc.string("create only: dev_… to push the checkout to (POST /v1/devices); updates go to the same device, same collapse id"),
        ])
    }

    static var paths: [(path: String, item: JSONValue)] {
        [
            ("/v1/checkouts", Doc.item([
                "post": Doc.operation(
                    "Create a checkout (every field defaults to the seed panel: {} gives 5/10/20 USD); the only response with its client_secret.",
                    body: parameters, responses: ["200": "checkout with client_secret, payment_requests and push_payload", "400": "every violation"], returns: OpenAPISchemas.ref("Checkout")),
            ])),
            ("/v1/checkouts/{id}", Doc.item([
                "get": Doc.operation("Retrieve a checkout.", path: true, responses: ["200": "checkout", "404": "unknown"], returns: OpenAPISchemas.ref("Checkout")),
                "post": Doc.operation("Update an open checkout's options: a new payload for the same thread.", path: true,
                                      body: parameters, responses: ["200": "checkout", "409": "not open"], returns: OpenAPISchemas.ref("Checkout")),
            ])),
            ("/v1/checkouts/{id}/cancel", Doc.item([
                "post": Doc.operation("Cancel an open checkout.", path: true, body: Doc.schema([:]), responses: ["200": "checkout"], returns: OpenAPISchemas.ref("Checkout")),
            ])),
            ("/v1/checkouts/{id}/pay", Doc.item([
                "post": Doc.operation(
                    "The device's call, authorized by the checkout's client_secret (Bearer): pay one of the amount options with an Apple Pay token or a card. Answers within the sheet's 25 s budget.",
                    auth: false, path: true,
                    body: Doc.schema([
                        "amount": Doc.integer("one of amount_options"),
                        "payment_token": .orderedObject([("type", "object"), ("description", "the PKPaymentToken as the device got it")]),
                        "card": Doc.schema([
                            "number": Doc.string("never stored"), "exp_month": Doc.integer("1-12"), "exp_year": Doc.integer("four digits"),
                            "holder_name": Doc.string("cardholder"),
                        ], required: ["number"]),
                    ], required: ["amount"]),
                    responses: ["200": "{sheet: success|failure, status, payment_intent, error?} (failure is 200 too; Idempotency-Key replays it)", "401": "not this checkout's client secret"], returns: OpenAPISchemas.ref("SheetAnswer")),
            ])),
            ("/v1/checkouts/{id}/challenge", Doc.item([
                "post": Doc.operation(
                    "The device's answer to 3-D Secure, authorized by the checkout's client_secret (Bearer): after /pay answered authentication_required, complete the challenge of this checkout's intent (passed or failed). Answers like /pay.",
                    auth: false, path: true,
                    body: Doc.schema(["passed": .orderedObject([("type", "boolean")])], required: ["passed"]),
                    responses: ["200": "{sheet: success|failure, status, payment_intent, error?} (failure is 200 too)", "401": "not this checkout's client secret",
                                "409": "no challenge waiting, checkout not open, or another call in flight"], returns: OpenAPISchemas.ref("SheetAnswer")),
            ])),
        ]
    }
}
