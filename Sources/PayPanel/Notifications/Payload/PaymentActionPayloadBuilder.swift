/// Builds the payment-action push: `aps.alert` (title, subtitle, body), `aps.category`
/// `PAYMENT_ACTION`, `aps.mutable-content` 1, `aps.thread-id` for the panel, and the `panel` key.
///
/// The thread-id is derived from the order reference (`order-<reference>`), or from the merchant
/// identifier when there is none (`panel-<merchant identifier>`), so every push about one order
/// lands in one thread and updates one open panel.
public struct PaymentActionPayloadBuilder: Sendable {
    public var panel: PanelConfig
    /// Defaults to the panel's product label.
    public var title: String?
    public var subtitle: String?
    /// Defaults to "Choose 5.00, 10.00 or 20.00 USD and pay with Apple Pay."
    public var body: String?
    /// Overrides the panel's order reference.
    public var orderReference: String?
    /// Optional Getui-style media for the service extension.
    public var media: MediaPayload?
    /// Overrides the derived thread-id: a resource that pushes its own panel (a checkout) names
    /// its thread after itself, so its updates replace its panel and no other.
    public var threadID: String?

    public init(
        panel: PanelConfig = .seed, title: String? = nil, subtitle: String? = nil, body: String? = nil,
        orderReference: String? = nil, media: MediaPayload? = nil, threadID: String? = nil
    ) {
        self.panel = panel
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.orderReference = orderReference
        self.media = media
        self.threadID = threadID
    }

    /// The thread-id for a panel: `order-<reference>`, else `panel-<merchant identifier>`.
    public static func threadID(for panel: PanelConfig) -> String {
        if let reference = panel.orderReference { return "order-\(reference)" }
        return "panel-\(panel.merchantIdentifier)"
    }

    /// The payload, checked by `PushPayloadReader` (types, panel, 4096-byte limit). Throws when
    /// it is not valid, with every problem in the error.
    public func build() throws(PaymentActionPayloadError) -> PushPayload {
        var panel = self.panel
        if let orderReference { panel.orderReference = orderReference }
        let title = self.title ?? panel.productLabel
        let body = self.body ?? defaultBody(for: panel)

        var alert = JSONObject()
        alert["title"] = .string(title)
        if let subtitle { alert["subtitle"] = .string(subtitle) }
        alert["body"] = .string(body)
        var aps = JSONObject()
        aps["alert"] = .object(alert)
        aps["category"] = .string(PushPayloadReader.paymentActionCategory)
        aps["mutable-content"] = .number(1)
        aps["thread-id"] = .string(threadID ?? PaymentActionPayloadBuilder.threadID(for: panel))
        var document = JSONObject()
        document["aps"] = .object(aps)
        document[PushPayloadReader.panelKey] = panel.json
        if let media { document[PushPayloadReader.mediaKey] = .string(media.encodedString) }

        let result = PushPayloadReader.read(json: .object(document))
        guard result.report.isValid, let payload = result.payload else {
            throw PaymentActionPayloadError(problems: result.report.errors, byteCount: result.compactByteCount ?? 0)
        }
        return payload
    }

    private func defaultBody(for panel: PanelConfig) -> String {
        guard let selector = try? panel.makeSelector() else { return "Pay with Apple Pay." }
        return "Choose \(selector.optionList) and pay with Apple Pay."
    }
}

/// The built payload is not valid (too large, or an input the reader rejects).
public struct PaymentActionPayloadError: PayPanelError, Equatable {
    public let problems: [ValidationIssue]
    /// The compact JSON size of what was built.
    public let byteCount: Int
    public var code: String { byteCount > PushPayload.maximumByteCount ? "payload_too_large" : "invalid_payload" }
    public var message: String {
        "cannot build the payment-action payload: " + problems.map(\.description).joined(separator: "; ")
    }
}
