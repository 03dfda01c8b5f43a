import Foundation

// The API form of a checkout: Stripe's conventions (`object`, `id`, snake_case, Unix seconds).
extension Checkout {
    /// `{"object": "checkout", "id", "status", …, "payment_requests", "push_payload"}`;
    /// `clientSecret` is included only in the create response (nothing else knows it).
    public func apiJSON(clientSecret: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("object", "checkout"),
            ("id", .string(id)),
            ("status", .string(status.rawValue)),
        ]
        if let clientSecret { members.append(("client_secret", .string(clientSecret))) }
        members += [
            ("merchant_identifier", .string(panel.merchantIdentifier)),
            ("merchant_name", .optional(panel.merchantName)),
            ("country", .string(panel.country.alpha2)),
            ("currency", .string(panel.currency.code)),
            ("supported_networks", .array(panel.supportedNetworks.map { .string($0.rawValue) })),
            ("merchant_capabilities", .array(panel.merchantCapabilities.canonicalNames.map(JSONValue.string))),
            ("product_label", .string(panel.productLabel)),
            ("amount_options", .array(panel.amountOptions.map(JSONValue.number))),
            ("default_segment", .number(panel.defaultSegment)),
            ("order_reference", .optional(panel.orderReference)),
            ("metadata", metadata.json),
            ("expires_at", panel.expiresAt.map { .number($0.unixSeconds) } ?? .null),
            ("capture_method", .string(captureMethod.rawValue)),
            ("payment_intent", .optional(paymentIntentID)),
            ("created", .number(createdAt.unixSeconds)),
            ("updated", .number(updatedAt.unixSeconds)),
            ("payment_requests", .array(paymentRequests.map(\.json))),
            // Built from a validated panel; only a panel whose labels no longer fit could fail,
            // and the create and update paths refuse those.
            ("push_payload", (try? pushPayload()).map { .object($0.document) } ?? .null),
        ]
        return .orderedObject(members)
    }
}
