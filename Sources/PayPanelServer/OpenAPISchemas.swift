import PayPanel

/// The response bodies of /openapi.json (`components.schemas`), as JSON Schema 2020-12 (what
/// OpenAPI 3.1 uses). Every object the API answers with is closed (`additionalProperties:
/// false`) and lists what it always carries as `required`, so a client generated from the
/// document knows every member, and the server tests can check every response they get
/// against it (`OpenAPIConformance` in TestSupport): a member added to a response without
/// being documented fails those tests.
enum OpenAPISchemas {
    /// `{"$ref": "#/components/schemas/<name>"}`.
    static func ref(_ name: String) -> JSONValue {
        .orderedObject([("$ref", .string("#/components/schemas/\(name)"))])
    }

    /// `{"object": "list", "data": [<name>…], "has_more", "url"}`.
    static func list(of name: String) -> JSONValue {
        object([
            ("object", constant("list")), ("data", array(ref(name))), ("has_more", type("boolean")), ("url", type("string")),
        ])
    }

    static var components: JSONValue {
        .orderedObject([
            ("Error", error), ("Failure", failure), ("Metadata", metadata),
            ("PaymentIntent", paymentIntent), ("PaymentAttempt", attempt), ("Refund", refund), ("PaymentEvent", paymentEvent),
            ("Checkout", checkout), ("PushDelivery", pushDelivery), ("SheetAnswer", sheetAnswer), ("Device", device),
            ("Event", event), ("UnreadableSnapshot", unreadableSnapshot), ("WebhookEndpoint", webhookEndpoint),
            ("Deleted", deleted), ("WebhookDelivery", webhookDelivery), ("ProcessorWebhookReceipt", processorWebhookReceipt),
            ("ProcessorLedger", processorLedger), ("Health", health), ("DemoSession", demoSession), ("DemoToken", demoToken),
        ])
    }

    // MARK: - The objects

    /// Every error: `{"error": {type, code, decline_code?, message, param?, payment_intent?, request_id}}`.
    static var error: JSONValue {
        object([("error", object([
            ("type", OpenAPIDocument.enumeration(["invalid_request_error", "authentication_error", "card_error", "idempotency_error", "api_error"])),
            ("code", type("string")), ("message", type("string")), ("request_id", type("string")),
        ], optional: [("decline_code", type("string")), ("param", type("string")), ("payment_intent", ref("PaymentIntent"))]))])
    }

    /// The merchant's key-value pairs (Stripe's limits): at most 50 keys of 1 to 40 characters
    /// without brackets, string values of at most 500 characters.
    static var metadata: JSONValue {
        .orderedObject([
            ("type", "object"),
            ("description", "your key-value pairs: at most 50 keys of 1 to 40 characters (no [ or ]), string values of at most 500 characters; no card numbers"),
            ("maxProperties", .number(Metadata.maximumKeys)),
            ("propertyNames", metadataKey),
            ("additionalProperties", .orderedObject([
                ("type", "string"), ("maxLength", .number(Metadata.maximumValueLength)),
                // Control characters but tab and line breaks are refused.
                ("pattern", "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$"),
            ])),
        ])
    }

    /// A metadata key: 1 to 40 characters, no control character, no `[` or `]`.
    static var metadataKey: JSONValue {
        .orderedObject([
            ("type", "string"), ("minLength", 1), ("maxLength", .number(Metadata.maximumKeyLength)),
            ("pattern", "^[^\\u0000-\\u001F\\u007F-\\u009F\\[\\]]+$"),
        ])
    }

    /// An intent's `last_error` and an attempt's `failure`.
    static var failure: JSONValue {
        object([
            ("type", OpenAPIDocument.enumeration(["card_error", "api_error"])), ("code", OpenAPIDocument.enumeration(FailureCode.allCases.map(\.rawValue))),
            ("message", type("string")),
        ], optional: [("decline_code", type("string"))])
    }

    static var paymentIntent: JSONValue {
        object([
            ("object", constant("payment_intent")), ("id", type("string")),
            ("status", OpenAPIDocument.enumeration(PaymentStatus.allCases.map(\.rawValue))),
            ("amount", type("integer")), ("currency", type("string")),
            ("capture_method", OpenAPIDocument.enumeration(CaptureMethod.allCases.map(\.rawValue))),
            ("amount_capturable", type("integer")), ("amount_captured", type("integer")),
            ("amount_refunded", type("integer")), ("amount_refundable", type("integer")),
            ("order_reference", type("string", "null")), ("metadata", ref("Metadata")), ("capture_before", type("integer", "null")),
            ("cancellation_reason", nullable(OpenAPIDocument.enumeration(CancellationReason.allCases.map(\.rawValue)))),
            ("last_error", nullable(ref("Failure"))), ("attempt_count", type("integer")),
            ("created", type("integer")), ("updated", type("integer")),
        ], optional: [
            ("attempts", array(ref("PaymentAttempt"))), ("refunds", array(ref("Refund"))),
            ("events", array(ref("PaymentEvent"))),
            ("resolution", object([
                ("as", OpenAPIDocument.enumeration(["authorized", "succeeded", "canceled", "retry"])), ("note", type("string")),
                ("operator", type("string")), ("forced", type("boolean")), ("processor_says", type("string")),
            ])),
        ])
    }

    /// The card summary is all an attempt says about the card: network, last four, expiry.
    static var attempt: JSONValue {
        object([
            ("object", constant("payment_attempt")), ("id", type("string")),
            ("status", OpenAPIDocument.enumeration(AttemptStatus.allCases.map(\.rawValue))),
            ("source", OpenAPIDocument.enumeration(AttemptSource.allCases.map(\.rawValue))),
            ("amount", type("integer")), ("currency", type("string")),
            ("card", object([
                ("network", type("string", "null")), ("last4", type("string")),
                ("exp_month", type("integer", "null")), ("exp_year", type("integer", "null")),
            ])),
            ("failure", nullable(ref("Failure"))), ("created", type("integer")),
        ])
    }

    static var refund: JSONValue {
        object([
            ("object", constant("refund")), ("id", type("string")), ("payment_intent", type("string")),
            ("amount", type("integer")), ("currency", type("string")),
            ("status", OpenAPIDocument.enumeration(RefundStatus.allCases.map(\.rawValue))),
            ("reason", type("string", "null")), ("failure_code", type("string", "null")), ("created", type("integer")),
        ])
    }

    /// One entry of an intent's history (`?include=events`); `data` is what the transition recorded.
    static var paymentEvent: JSONValue {
        object([
            ("object", constant("event")), ("id", type("string")), ("version", type("integer")), ("type", type("string")),
            ("from_status", type("string", "null")), ("to_status", type("string", "null")), ("data", .orderedObject([])),
            ("created", type("integer")),
        ])
    }

    static var checkout: JSONValue {
        object([
            ("object", constant("checkout")), ("id", type("string")),
            ("status", OpenAPIDocument.enumeration(CheckoutStatus.allCases.map(\.rawValue))),
            ("merchant_identifier", type("string")), ("merchant_name", type("string", "null")),
            ("country", type("string")), ("currency", type("string")),
            ("supported_networks", array(type("string"))), ("merchant_capabilities", array(type("string"))),
            ("product_label", type("string")), ("amount_options", array(type("integer"))),
            ("default_segment", type("integer")), ("order_reference", type("string", "null")), ("metadata", ref("Metadata")),
            ("expires_at", type("integer", "null")), ("capture_method", OpenAPIDocument.enumeration(CaptureMethod.allCases.map(\.rawValue))),
            ("payment_intent", type("string", "null")), ("created", type("integer")), ("updated", type("integer")),
            ("payment_requests", array(described("object", "a PKPaymentRequest per amount option, as the device builds it"))),
            ("push_payload", nullable(described("object", "the APNs payload (aps and the panel's keys)"))),
        ], optional: [
            ("client_secret", described("string", "only in the create response")),
            ("push", ref("PushDelivery")),
        ])
    }

    static var pushDelivery: JSONValue {
        object([
            ("status", type("string")), ("apns_id", type("string")), ("device", type("string")), ("attempts", type("integer")),
        ], optional: [("reason", type("string"))])
    }

    /// The answer of `/pay` and of the device's `/challenge`: what the sheet shows.
    static var sheetAnswer: JSONValue {
        object([
            ("sheet", OpenAPIDocument.enumeration(["success", "failure"])), ("status", type("string")), ("payment_intent", type("string")),
        ], optional: [("error", object([("code", type("string")), ("message", type("string"))]))])
    }

    static var device: JSONValue {
        object([
            ("object", constant("device")), ("id", type("string")), ("token", type("string")), ("topic", type("string")),
            ("environment", OpenAPIDocument.enumeration(["development", "production"])), ("status", OpenAPIDocument.enumeration(["active", "dead"])),
            ("created", type("integer")),
        ], optional: [("dead_reason", type("string")), ("dead_at", type("integer"))])
    }

    /// An event of `/v1/events`, and the body a webhook delivers.
    static var event: JSONValue {
        object([
            ("object", constant("event")), ("id", type("string")), ("type", OpenAPIDocument.enumeration(EventTypes.all)), ("created", type("integer")),
            ("data", object([("object", anyOf([ref("PaymentIntent"), ref("Refund"), ref("Checkout"), ref("UnreadableSnapshot")]))])),
        ])
    }

    /// An event's object whose snapshot a newer program wrote: the id, to fetch it.
    static var unreadableSnapshot: JSONValue {
        object([("object", constant("payment_intent")), ("id", type("string")), ("snapshot_unreadable", constant(true))])
    }

    static var webhookEndpoint: JSONValue {
        object([
            ("object", constant("webhook_endpoint")), ("id", type("string")), ("url", type("string")),
            ("events", array(type("string"))), ("status", type("string")), ("disabled_reason", type("string", "null")),
            ("secret_version", type("integer")), ("created", type("integer")),
        ], optional: [("secret", described("string", "whsec_…, only in the create response"))])
    }

    static var deleted: JSONValue {
        object([("object", type("string")), ("id", type("string")), ("deleted", constant(true))])
    }

    /// Never the body or the signature: what was tried, when, and how it went.
    static var webhookDelivery: JSONValue {
        object([
            ("object", constant("webhook_delivery")), ("id", type("integer")), ("event", type("string")),
            ("event_type", type("string")), ("event_object", type("string")), ("event_created", type("integer")),
            ("endpoint", type("string")), ("status", type("string")), ("attempt_count", type("integer")),
            ("next_attempt", type("integer", "null")), ("last_response_code", type("integer", "null")),
            ("last_error", type("string", "null")),
            ("attempts", array(object([
                ("attempt", type("integer")), ("started", type("integer")), ("duration_ms", type("integer")),
                ("response_code", type("integer", "null")), ("outcome", type("string")), ("error", type("string", "null")),
            ]))),
        ])
    }

    static var processorWebhookReceipt: JSONValue {
        object([
            ("received", type("boolean")), ("id", type("string")),
            ("disposition", OpenAPIDocument.enumeration(ProcessorWebhookResult.Disposition.allCases.map(\.rawValue))),
            ("payment_intent", type("string", "null")), ("reason", type("string", "null")),
        ])
    }

    static var processorLedger: JSONValue {
        object([
            ("object", constant("processor_ledger")), ("payment_intent", type("string")), ("available", type("boolean")),
            ("data", array(object([
                ("object", constant("processor_ledger_entry")), ("id", type("string")), ("attempt", type("string")),
                ("operation", type("string")), ("refund", type("string", "null")), ("amount", type("integer")),
                ("currency", type("string")), ("status", type("string")), ("decline_code", type("string", "null")),
                ("network", type("string", "null")), ("last4", type("string", "null")), ("created", type("integer", "null")),
            ]))),
        ], optional: [("reason", type("string"))])
    }

    static var health: JSONValue {
        // `worker_passes`: on /healthz, the reconciliation worker's finished passes (it grows while the worker lives).
        object([("object", constant("health")), ("id", type("string")), ("status", type("string"))], optional: [("worker_passes", type("integer"))])
    }

    static var demoSession: JSONValue {
        object([
            ("object", constant("demo_session")), ("demo_key", type("string")),
            ("wallet", array(object([
                ("id", type("string")), ("network", type("string")), ("last4", type("string")), ("behaviour", type("string")),
            ]))),
        ])
    }

    static var demoToken: JSONValue {
        object([("object", constant("demo_token")), ("payment_token", described("object", "a PKPaymentToken"))])
    }

    // MARK: - JSON Schema building blocks

    /// A closed object: `required` members always present, `optional` ones sometimes.
    static func object(_ required: [(String, JSONValue)], optional: [(String, JSONValue)] = []) -> JSONValue {
        closed(required + optional, required: required.map(\.0))
    }

    /// An object with exactly `properties` (no others allowed), of which `required` always appear.
    /// Request bodies (`OpenAPIDocument.schema`) and responses are both built by it.
    static func closed(_ properties: [(String, JSONValue)], required: [String]) -> JSONValue {
        .orderedObject([
            ("type", "object"), ("additionalProperties", false),
            ("properties", .orderedObject(properties)),
            ("required", .array(required.map { .string($0) })),
        ])
    }

    static func type(_ names: String...) -> JSONValue {
        .orderedObject([("type", names.count == 1 ? .string(names[0]) : .array(names.map(JSONValue.string)))])
    }

    static func described(_ name: String, _ description: String) -> JSONValue {
        .orderedObject([("type", .string(name)), ("description", .string(description))])
    }

    static func array(_ items: JSONValue) -> JSONValue {
        .orderedObject([("type", "array"), ("items", items)])
    }

    static func constant(_ value: JSONValue) -> JSONValue {
        .orderedObject([("const", value)])
    }

    static func nullable(_ schema: JSONValue) -> JSONValue {
        anyOf([schema, type("null")])
    }

    static func anyOf(_ schemas: [JSONValue]) -> JSONValue {
        .orderedObject([("anyOf", .array(schemas))])
    }
}
