import PayPanel

/// The OpenAPI 3.1 description of every route, written by hand as a value (served at
/// `/openapi.json`), its response bodies in `OpenAPISchemas`. Tests check that every route the
/// router has is in it and that every response the server tests receive matches it.
enum OpenAPIDocument {
    static func make(extraPaths: [(path: String, item: JSONValue)]) -> JSONValue {
        var paths: [(String, JSONValue)] = [
            ("/healthz", item(["get": operation("Liveness: the process answers.", responses: ["200": "ok"], returns: OpenAPISchemas.ref("Health"))])),
            ("/readyz", item(["get": operation("Readiness: the database is reachable and its migrations are current.",
                                              responses: ["200": "ready", "503": "not ready"], returns: OpenAPISchemas.ref("Health"))])),
            ("/openapi.json", item(["get": operation("This document.", responses: ["200": "the OpenAPI document"], returns: OpenAPISchemas.described("object", "this document"))])),
            ("/favicon.ico", item(["get": operation("No icon: 204, so browsers showing /demo or /console stop asking.", responses: ["204": "no content"])])),
            ("/v1/payment_intents", item([
                "post": operation("Create a payment intent.", body: schema([
                    "amount": paymentAmount, "currency": currency,
                    "capture_method": enumeration(CaptureMethod.allCases.map(\.rawValue)),
                    "order_reference": text("your order reference (1 to 200 characters)", length: 1...200),
                    "metadata": OpenAPISchemas.ref("Metadata"),
                ], required: ["amount", "currency"], allOf: amountWithinCurrencyMaximum), responses: ["200": "payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
                "get": operation("List payment intents, newest first.", query: listQuery(cursor: "intent id") + [
                    parameter("status", enumeration(PaymentStatus.allCases.map(\.rawValue))),
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
                            card(typed: true),
                            schema([
                                "type": enumeration(["apple_pay"]),
                                "token": .orderedObject([("type", "object"), ("description", "the PKPaymentToken (paymentData, paymentMethod, transactionIdentifier); test-root tokens only under serve --test-root")]),
                            ], required: ["type", "token"]),
                        ]))]),
                    ], required: ["payment_method"]),
                    responses: ["200": "payment_intent", "400": "a token that does not verify, decrypt or match the amount", "402": "declined: error with payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/capture", item([
                "post": operation("Capture an authorized intent.", path: true, body: schema(["amount": positiveAmount("minor units; default all")]),
                                  responses: ["200": "payment_intent"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/payment_intents/{id}/cancel", item([
                "post": operation("Cancel (voiding an authorization).", path: true,
                                  body: schema(["reason": enumeration(PaymentsAPI.merchantCancellationReasons.map(\.rawValue))]),
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
                        "resolution": enumeration(IntentResolution.allCases.map(\.rawValue)),
                        "note": text("why: what was checked and decided (kept in the history)", length: 1...OperatorRecord.maximumNoteLength),
                        "operator": text("who resolves it (default: the API key's id)", length: 1...OperatorRecord.maximumActorLength),
                        "force": .orderedObject([("type", "boolean"), ("description", "apply although the processor's ledger contradicts it (recorded as forced)")]),
                    ], required: ["resolution", "note"]),
                    responses: ["200": "payment_intent with resolution {as, note, operator, forced, processor_says}",
                                "409": "not in requires_merchant_action, or resolution_contradicts_processor"], returns: OpenAPISchemas.ref("PaymentIntent")),
            ])),
            ("/v1/refunds", item([
                "post": operation("Refund a captured intent.", body: schema([
                    "payment_intent": string("pi_…", length: 1...255), "amount": positiveAmount("minor units; default all refundable"),
                    "reason": enumeration(RefundReason.allCases.map(\.rawValue)),
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
                ("securitySchemes", OpenAPISecurity.schemes),
                ("schemas", OpenAPISchemas.components),
            ])),
            ("paths", .orderedObject(paths)),
        ])
    }

    static func item(_ operations: [String: JSONValue]) -> JSONValue {
        .orderedObject(operations.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// An operation's `security` (and its 401) is not written here: `securing(_:by:)` adds it
    /// from the credential each route declares, so the document cannot drift from the router.
    /// `returns`: the schema of the 2xx body (a `$ref` into components); `answers`: bodies of
    /// other statuses that are not the error envelope (every other status answers `Error`);
    /// `mediaType`: what a page route serves instead of JSON; `pageStatuses`: the non-2xx
    /// statuses that answer a page of that type too (a 404 page that says what to do).
    static func operation(
        _ summary: String, path: Bool = false, query: [JSONValue] = [], body: JSONValue? = nil,
        responses: [String: String], returns: JSONValue? = nil, answers: [String: JSONValue] = [:], mediaType: String = "application/json",
        pageStatuses: Set<String> = []
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("summary", .string(summary))]
        var parameters = query
        if path { parameters.insert(parameter("id", identifier("object id"), in: "path", required: true), at: 0) }
        if body != nil { parameters.append(idempotencyKeyHeader) }
        if !parameters.isEmpty { members.append(("parameters", .array(parameters))) }
        if let body {
            members.append(("requestBody", .orderedObject([("required", true), ("content", .orderedObject([
                ("application/json", .orderedObject([("schema", body)])),
            ]))])))
        }
        var all = responses
        all["default"] = "error envelope {\"error\": {type, code, message, param?, request_id}}"
        members.append(("responses", .orderedObject(all.sorted { $0.key < $1.key }.map { status, description in
            let success = status.hasPrefix("2")
            let (media, schema): (String, JSONValue?) = (success || pageStatuses.contains(status)) && mediaType != "application/json"
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
            ("schema", .orderedObject([
                ("type", "object"), ("propertyNames", OpenAPISchemas.metadataKey),
                // The HTTP core refuses an encoded NUL anywhere in a query.
                ("additionalProperties", string("the value to match", length: 0...Metadata.maximumValueLength, pattern: "^[^\\u0000]*$")),
            ])),
        ])
    }

    static func parameter(_ name: String, _ schema: JSONValue, in place: String = "query", required: Bool = false) -> JSONValue {
        .orderedObject([("name", .string(name)), ("in", .string(place)), ("required", .bool(required)), ("schema", schema)])
    }

    /// A request body object: exactly these members, `required` ones present. An optional member
    /// may also be `null`, which the server reads as absent (`RequestBody`).
    /// `allOf`: conditions across members (`if`/`then`).
    static func schema(_ properties: [String: JSONValue], required: [String] = [], allOf: JSONValue? = nil) -> JSONValue {
        let closed = OpenAPISchemas.closed(properties.sorted { $0.key < $1.key }.map { name, schema in
            (name, required.contains(name) ? schema : nullable(schema))
        }, required: required)
        guard let allOf, var object = closed.objectValue else { return closed }
        object["allOf"] = allOf
        return .object(object)
    }

    /// `schema`, or `null`.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        .orderedObject([("anyOf", .array([schema, OpenAPISchemas.type("null")]))])
    }

    static func string(_ description: String) -> JSONValue {
        OpenAPISchemas.described("string", description)
    }

    static func integer(_ description: String) -> JSONValue {
        OpenAPISchemas.described("integer", description)
    }

    /// An integer within the bounds the server checks.
    static func integer(_ description: String, _ range: ClosedRange<Int64>) -> JSONValue {
        .orderedObject([("type", "integer"), ("minimum", .number(range.lowerBound)), ("maximum", .number(range.upperBound)),
                        ("description", .string(description))])
    }

    /// A string of `length` characters (UTF-8 bytes for header values), matching `pattern` when given.
    static func string(_ description: String, length: ClosedRange<Int>, pattern: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "string"), ("minLength", .number(length.lowerBound)), ("maxLength", .number(length.upperBound))]
        if let pattern { members.append(("pattern", .string(pattern))) }
        members.append(("description", .string(description)))
        return .orderedObject(members)
    }

    /// Text a person types (a reference, a note, a name): no control characters, no invisible
    /// formatting characters (the server refuses both), not only spaces. Refusing a card number
    /// in it (a Luhn-valid run of 13–19 digits) is beyond a pattern; docs/http-api.md has the rule.
    static func text(_ description: String, length: ClosedRange<Int>) -> JSONValue {
        string(description, length: length, pattern: printableTextPattern)
    }

    /// The characters `text` refuses: C0 and C1 controls, DEL, and the default-ignorable
    /// (invisible) code points; at least one non-space. The ones beyond the Basic Multilingual
    /// Plane are written as the characters themselves (a `\\u` escape reaches only U+FFFF).
    static let printableTextPattern =
        "^(?=.*[^\\s])[^\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8"
        + "\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}]*$"

    /// An array of `count` items, optionally without repeats.
    static func list(_ items: JSONValue, count: ClosedRange<Int>, unique: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", "array"), ("items", items), ("minItems", .number(count.lowerBound)), ("maxItems", .number(count.upperBound))]
        if unique { members.append(("uniqueItems", true)) }
        return .orderedObject(members)
    }

    /// The `Idempotency-Key` header: 1 to 255 printable ASCII characters, not starting or
    /// ending with a space (a header value's surrounding spaces are not part of it).
    static let idempotencyKeyHeader: JSONValue = parameter(
        "Idempotency-Key", string("retry safely with the same key: the first answer is replayed for 24 h", length: 1...255,
                                  pattern: "^[\\x21-\\x7E]([\\x20-\\x7E]*[\\x21-\\x7E])?$"), in: "header")

    /// A new intent's amount: 1 minor unit up to 100,000,000 of the major unit. The upper
    /// bound depends on the currency's minor units; `amountWithinCurrencyMaximum` states it.
    static let paymentAmount = integer(
        "minor units (1000 = 10.00 USD); at most 100,000,000 of the currency's major unit (100000000 JPY, 10000000000 USD, 1000000000000 CLF)",
        1...Amount.maximumTotalMajorUnits * Currency.finest.minorUnitsPerMajorUnit)

    /// `if currency is one with n minor units then amount ≤ 100,000,000 × 10ⁿ`, one branch per n.
    static var amountWithinCurrencyMaximum: JSONValue {
        let byExponent = Dictionary(grouping: Currency.all, by: \.minorUnitsPerMajorUnit)
        return .array(byExponent.keys.sorted().map { perMajor in
            .orderedObject([
                ("if", .orderedObject([("properties", .orderedObject([("currency", .orderedObject([
                    ("enum", .array(byExponent[perMajor]!.map { .string($0.code) })),
                ]))])), ("required", ["currency"])])),
                ("then", .orderedObject([("properties", .orderedObject([("amount", .orderedObject([
                    ("maximum", .number(Amount.maximumTotalMajorUnits * perMajor)),
                ]))]))])),
            ])
        })
    }

    /// An amount of an existing intent (capture, refund): positive; what is left on the intent
    /// bounds it further (a 400 names the rule).
    static func positiveAmount(_ description: String) -> JSONValue {
        integer(description, 1...Int64(Int32.max) * 1000)
    }

    /// An upper-case ISO 4217 payment currency.
    static let currency: JSONValue = .orderedObject([
        ("type", "string"), ("enum", .array(Currency.all.map { .string($0.code) })), ("description", "upper-case ISO 4217 code"),
    ])

    /// A card as the API takes it (with `type: card` inside a confirm's payment method). The
    /// number must also pass the Luhn check, which no pattern states (a 400 `invalid_number`).
    static func card(typed: Bool) -> JSONValue {
        var fields: [String: JSONValue] = [
            "number": string("12 to 19 digits passing the Luhn check; never stored", length: 12...19, pattern: "^[0-9]{12,19}$"),
            // Not nullable: the two come together or not at all, and a null one is absent.
            "exp_month": integer("1-12 (with exp_year)", 1...12), "exp_year": integer("four digits (with exp_month)", 2000...2099),
            "holder_name": nullable(string("cardholder", length: 0...200)),
        ]
        if typed { fields["type"] = enumeration(["card"]) }
        return .orderedObject([
            ("type", "object"), ("additionalProperties", false),
            ("properties", .orderedObject(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })),
            ("required", .array((typed ? ["type", "number"] : ["number"]).map(JSONValue.string))),
            // Both parts of the expiry, or neither.
            ("dependentRequired", .orderedObject([("exp_month", ["exp_year"]), ("exp_year", ["exp_month"])])),
        ])
    }

    /// `limit`, `starting_after`, `ending_before` of a list (not both cursors: a 400 says so).
    static func listQuery(cursor: String, defaultLimit: Int = 10) -> [JSONValue] {
        [parameter("limit", integer("1-100, default \(defaultLimit)", 1...100)),
         parameter("starting_after", identifier("\(cursor): the page after it")),
         parameter("ending_before", identifier("\(cursor): the page before it (not with starting_after)"))]
    }

    /// An id in a path or query: the HTTP core refuses an encoded NUL anywhere in either, and a
    /// path segment that is `.` or `..`.
    static func identifier(_ description: String) -> JSONValue {
        string(description, length: 1...255, pattern: "^(?!\\.{1,2}$)[^\\u0000]+$")
    }

    static func enumeration(_ values: [String]) -> JSONValue {
        .orderedObject([("type", "string"), ("enum", .array(values.map { .string($0) }))])
    }
}
