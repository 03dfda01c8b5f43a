import PayPanel

/// The OpenAPI 3.1 description of every route, written by hand as a value (served at
/// `/openapi.json`), its response bodies in `OpenAPISchemas`. Tests check that every route the
/// router has is in it and that every response the server tests receive matches it.
enum OpenAPIDocument {
    static func make(extraPaths: [(path: String, item: JSONValue)]) -> JSONValue {
        var paths: [(String, JSONValue)] = [
            ("/healthz", item(["get": operation("Liveness: the process answers.", auth: false, responses: ["200": "ok"], returns: OpenAPISchemas.ref("Health"))])),
            ("/readyz", item(["get": operation("Readiness: the database is reachable and its migrations are current.", auth: false,
                                              responses: ["200": "ready", "503": "not ready"], returns: OpenAPISchemas.ref("Health"))])),
            ("/openapi.json", item(["get": operation("This document.", auth: false, responses: ["200": "the OpenAPI document"], returns: OpenAPISchemas.described("object", "this document"))])),
            ("/v1/payment_intents", item([
                "post": operation("Create a payment intent.", body: schema([
                    "amount": integer("minor units, > 0"), "currency": string("upper-case ISO 4217 code"),
                    "capture_method": enumeration(["automatic", "manual"]), "order_reference": string("your order reference"),
                    "metadata": OpenAPISchemas.ref("Metadata"),
                ], required: ["amount", "currency"]), responses: ["200": "payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
                "get": operation("List payment intents, newest first.", query: [
                    parameter("limit", integer("1-100, default 10")), parameter("starting_after", string("intent id cursor")),
                    parameter("ending_before", string("intent id cursor")), parameter("status", string("a payment intent status")),
                    metadataFilter,
                ], responses: ["200": "list of payment_intent"], returns: OpenAPISchemas.list(of: "PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}", item([
                "get": operation("Retrieve a payment intent with its attempts and refunds.", path: true,
                                 query: [parameter("include", enumeration(["events"]))], responses: ["200": "payment_intent", "404": "unknown"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/confirm", item([
                "post": operation(
                    "Authorize with a card or an Apple Pay token (verified and decrypted as on /pay; captured at once for automatic capture).",
                    path: true, body: schema([
                        "payment_method": .orderedObject([("oneOf", .array([
                            schema([
                                "type": enumeration(["card"]), "number": string("card number, never stored"),
                                "exp_month": integer("1-12"), "exp_year": integer("four digits"), "holder_name": string("cardholder"),
                            ], required: ["type", "number"]),
                            schema([
                                "type": enumeration(["apple_pay"]),
                                "token": .orderedObject([("type", "object"), ("description", "the PKPaymentToken (paymentData, paymentMethod, transactionIdentifier); test-root tokens only under serve --test-root")]),
                            ], required: ["type", "token"]),
                        ]))]),
                    ], required: ["payment_method"]),
                    responses: ["200": "payment_intent", "400": "a token that does not verify, decrypt or match the amount", "402": "declined: error with payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/capture", item([
                "post": operation("Capture an authorized intent.", path: true, body: schema(["amount": integer("minor units; default all")]),
                                  responses: ["200": "payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/cancel", item([
                "post": operation("Cancel (voiding an authorization).", path: true,
                                  body: schema(["reason": enumeration(["requested_by_customer", "duplicate", "fraudulent", "abandoned"])]),
                                  responses: ["200": "payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/challenge", item([
                "post": operation("Answer the 3-D Secure challenge.", path: true, body: schema(["passed": .orderedObject([("type", "boolean")])], required: ["passed"]),
                                  responses: ["200": "payment_intent", "402": "failed"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/resolve", item([
                "post": operation(
                    "The operator's resolution of an intent in requires_merchant_action (as paypanel payments resolve): the processor is asked first; a resolution its ledger contradicts is refused unless force is true.",
                    path: true, body: schema([
                        "resolution": enumeration(["authorized", "succeeded", "canceled", "retry"]),
                        "note": string("why: what was checked and decided (kept in the history, up to 500 characters)"),
                        "operator": string("who resolves it (default: the API key's id)"),
                        "force": .orderedObject([("type", "boolean"), ("description", "apply although the processor's ledger contradicts it (recorded as forced)")]),
                    ], required: ["resolution", "note"]),
                    responses: ["200": "payment_intent with resolution {as, note, operator, forced, processor_says}",
                                "409": "not in requires_merchant_action, or resolution_contradicts_processor"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/refunds", item([
                "post": operation("Refund a captured intent.", body: schema([
                    "payment_intent": string("pi_…"), "amount": integer("minor units; default all refundable"),
                    "reason": enumeration(["requested_by_customer", "duplicate", "fraudulent"]),
                ], required: ["payment_intent"]), responses: ["200": "refund"], returns: OpenAPISchemas.ref("Refund")),
            ])),
            ("/v1/refunds/{id}", item(["get": operation("Retrieve a refund.", path: true, responses: ["200": "refund", "404": "unknown"], returns: OpenAPISchemas.ref("Refund"))])),
        ]
        paths += extraPaths.map { ($0.path, $0.item) }
        return .orderedObject([
            ("openapi", "3.1.0"),
            ("info", .orderedObject([("title", "PayPanel API"), ("version", .string(PayPanelVersion.current)),
                                     ("description", "See docs/http-api.md: auth, idempotency, errors.")])),
            ("components", .orderedObject([
                ("securitySchemes", .orderedObject([
                    ("secretKey", .orderedObject([("type", "http"), ("scheme", "bearer"), ("description", "sk_… secret API key")])),
                ])),
                ("schemas", OpenAPISchemas.components),
            ])),
            ("paths", .orderedObject(paths)),
        ])
    }

    static func item(_ operations: [String: JSONValue]) -> JSONValue {
        .orderedObject(operations.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// `returns`: the schema of the 2xx body (a `$ref` into components); `answers`: bodies of
    /// other statuses that are not the error envelope (every other status answers `Error`);
    /// `mediaType`: what a page route serves instead of JSON.
    static func operation(
        _ summary: String, auth: Bool = true, path: Bool = false, query: [JSONValue] = [], body: JSONValue? = nil,
        responses: [String: String], returns: JSONValue? = nil, answers: [String: JSONValue] = [:], mediaType: String = "application/json"
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("summary", .string(summary))]
        var parameters = query
        if path { parameters.insert(parameter("id", string("object id"), in: "path", required: true), at: 0) }
        if body != nil { parameters.append(parameter("Idempotency-Key", string("retry safely; 24 h"), in: "header")) }
        if !parameters.isEmpty { members.append(("parameters", .array(parameters))) }
        if let body {
            members.append(("requestBody", .orderedObject([("required", true), ("content", .orderedObject([
                ("application/json", .orderedObject([("schema", body)])),
            ]))])))
        }
        members.append(("security", auth ? .array([.orderedObject([("secretKey", .array([]))])]) : .array([])))
        var all = responses
        if auth { all["401"] = "invalid or missing API key" }
        all["default"] = "error envelope {\"error\": {type, code, message, param?, request_id}}"
        members.append(("responses", .orderedObject(all.sorted { $0.key < $1.key }.map { status, description in
            let success = status.hasPrefix("2")
            let (media, schema): (String, JSONValue?) = success && mediaType != "application/json"
                ? (mediaType, OpenAPISchemas.type("string"))
                : ("application/json", answers[status] ?? (success ? returns : OpenAPISchemas.ref("Error")))
            var response: [(String, JSONValue)] = [("description", .string(description))]
            if let schema { response.append(("content", .orderedObject([(media, .orderedObject([("schema", schema)]))]))) }
            return (status, .orderedObject(response))
        })))
        return .orderedObject(members)
    }

    /// `metadata[key]=value`, as many as wanted: only intents whose metadata holds every pair.
    static var metadataFilter: JSONValue {
        .orderedObject([
            ("name", "metadata"), ("in", "query"), ("required", false), ("style", "deepObject"), ("explode", true),
            ("description", "metadata[key]=value: only intents whose metadata holds every pair given"),
            ("schema", .orderedObject([("type", "object"), ("additionalProperties", .orderedObject([("type", "string")]))])),
        ])
    }

    static func parameter(_ name: String, _ schema: JSONValue, in place: String = "query", required: Bool = false) -> JSONValue {
        .orderedObject([("name", .string(name)), ("in", .string(place)), ("required", .bool(required)), ("schema", schema)])
    }

    static func schema(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        OpenAPISchemas.closed(properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, required: required)
    }

    static func string(_ description: String) -> JSONValue {
        OpenAPISchemas.described("string", description)
    }

    static func integer(_ description: String) -> JSONValue {
        OpenAPISchemas.described("integer", description)
    }

    static func enumeration(_ values: [String]) -> JSONValue {
        .orderedObject([("type", "string"), ("enum", .array(values.map { .string($0) }))])
    }
}
