import Foundation

/// What a checkout is made of, read from the body of `POST /v1/checkouts` (or of an update):
/// the panel, the capture method and the merchant's metadata. Every field is optional; an absent
/// one keeps the base's value — the seed panel (5/10/20 USD "Some Product") for a new checkout,
/// the checkout's own values for an update. Metadata follows Stripe's update: the keys given are
/// set (or removed, with ""), the others kept.
public struct CheckoutParameters: Sendable, Equatable {
    public var panel: PanelConfig
    public var captureMethod: CaptureMethod
    public var metadata: Metadata

    public init(panel: PanelConfig, captureMethod: CaptureMethod, metadata: Metadata = .empty) {
        self.panel = panel
        self.captureMethod = captureMethod
        self.metadata = metadata
    }

    /// The seed panel with automatic capture (Stripe's default), expiring one day after creation.
    public static let seed = CheckoutParameters(panel: .seed, captureMethod: .automatic)

    /// How long a checkout created without `expires_at` stays open.
    public static let defaultLifetime: TimeInterval = 24 * 3600

    /// The body's keys, snake_case, and the panel key each one fills.
    static let panelKeys: [(api: String, panel: String)] = [
        ("merchant_identifier", "merchantIdentifier"), ("merchant_name", "merchantName"), ("country", "countryCode"),
        ("currency", "currencyCode"), ("supported_networks", "supportedNetworks"),
        ("merchant_capabilities", "merchantCapabilities"), ("product_label", "productLabel"),
        ("amount_options", "amountOptions"), ("default_segment", "defaultSegment"), ("order_reference", "orderReference"),
    ]
    static let expiresAtKey = "expires_at"
    static let captureMethodKey = "capture_method"
    static let metadataKey = "metadata"
    /// Every key the body may hold.
    public static let keys: [String] = panelKeys.map(\.api) + [expiresAtKey, captureMethodKey, metadataKey]
}

/// Reads `CheckoutParameters`, reporting every violation at once with its field path, the
/// way `request validate` does. The panel fields go through the panel's own validator
/// (`PanelConfigReader`: the same merchant, network, capability and amount rules as the
/// payment request), with its paths given back in the body's snake_case; the order reference
/// goes through the intent's rules; the payload built from the result must fit in 4096 bytes.
/// Unknown keys are refused.
public enum CheckoutParametersReader {
    public struct Result: Sendable {
        public let report: ValidationReport
        /// Set when the report has no error.
        public let parameters: CheckoutParameters?
    }

    /// Reads `json` over `base`. `now` is when the checkout is created or updated: an
    /// `expires_at` in the body must be after it.
    public static func read(json: JSONValue, base: CheckoutParameters = .seed, now: Date) -> Result {
        var reader = JSONFieldReader()
        guard let body = reader.object(json, at: .root) else { return Result(report: reader.report, parameters: nil) }
        for key in body.keys where !CheckoutParameters.keys.contains(key) {
            reader.report.error(FieldPath.root.appending(key),
                "unknown parameter; a checkout takes \(CheckoutParameters.keys.joined(separator: ", "))")
        }

        // The panel as the panel validator reads it: the base's fields, overlaid by the body's.
        var merged = base.panel.json.objectValue ?? JSONObject()
        for (api, panelKey) in CheckoutParameters.panelKeys {
            if let value = body[api], value != .null { merged[panelKey] = value }
        }
        if let options = body["amount_options"]?.arrayValue, body["default_segment"] == nil || body["default_segment"] == .null {
            // New options without a default segment: the base's when it still exists, else the first.
            if base.panel.defaultSegment > options.count { merged["defaultSegment"] = .number(1) }
        }
        if let value = body[CheckoutParameters.expiresAtKey], value != .null {
            let path = FieldPath.root.appending(CheckoutParameters.expiresAtKey)
            if let seconds = reader.integer(value, at: path) {
                let date = Date(timeIntervalSince1970: TimeInterval(seconds))
                if seconds <= 0 || seconds > 253_402_300_799 {
                    reader.report.error(path, "must be a Unix time in seconds, such as \(CheckoutJSONTime.example(now))")
                } else if date <= now {
                    reader.report.error(path, "must be in the future: \(seconds) is not after now (\(now.unixSeconds))")
                } else {
                    merged["expiresAt"] = .string(Timestamp.format(date))
                }
            }
        }
        var captureMethod = base.captureMethod
        if let text = reader.string(body[CheckoutParameters.captureMethodKey], at: FieldPath.root.appending(CheckoutParameters.captureMethodKey), required: false) {
            if let method = CaptureMethod(rawValue: text) {
                captureMethod = method
            } else {
                reader.report.error(FieldPath.root.appending(CheckoutParameters.captureMethodKey),
                    "must be \(CaptureMethod.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: " or ")), not \(JSONWriter.quoted(SensitiveDigits.redacted(text)))")
            }
        }

        var metadata = base.metadata
        if let value = body[CheckoutParameters.metadataKey], value != .null {
            let (change, problems) = Metadata.change(from: value, field: CheckoutParameters.metadataKey)
            for problem in problems { reader.report.error(FieldPath.root.appending(problem.field), problem.reason) }
            if let change {
                do {
                    metadata = try metadata.applying(change)
                } catch {
                    reader.report.error(FieldPath.root.appending(error.field), error.reason)
                }
            }
        }

        let panelResult = PanelConfigReader.read(json: .object(merged))
        for issue in panelResult.report.errors { reader.report.error(apiPath(issue.path), issue.reason) }
        for issue in panelResult.report.warnings { reader.report.warning(apiPath(issue.path), issue.reason) }
        if let reference = panelResult.panel?.orderReference {
            do {
                _ = try NewPaymentIntent(amount: Amount(minorUnits: 1, currency: panelResult.panel!.currency), orderReference: reference)
            } catch {
                reader.report.error(FieldPath.root.appending("order_reference"), error.message)
            }
        }
        guard reader.report.isValid, let panel = panelResult.panel else { return Result(report: reader.report, parameters: nil) }
        // The longest thread-id a checkout can have, so a payload that fits now always fits.
        let widest = "checkout-co_" + String(repeating: "x", count: PaymentIDs.randomLength)
        do {
            _ = try PaymentActionPayloadBuilder(panel: panel, threadID: widest).build()
        } catch {
            for problem in error.problems { reader.report.error(.root, "the push payload would not be valid: \(problem.description)") }
            return Result(report: reader.report, parameters: nil)
        }
        return Result(report: reader.report, parameters: CheckoutParameters(panel: panel, captureMethod: captureMethod, metadata: metadata))
    }

    /// A panel path (`amountOptions[1]`) in the body's terms (`amount_options[1]`).
    static func apiPath(_ panelPath: String) -> FieldPath {
        let end = panelPath.firstIndex { $0 == "[" || $0 == "." } ?? panelPath.endIndex
        let head = String(panelPath[..<end])
        guard head != "$", !head.isEmpty else { return .root }
        var path: FieldPath
        if head == "expiresAt" {
            path = FieldPath.root.appending(CheckoutParameters.expiresAtKey)
        } else {
            path = FieldPath.root.appending(CheckoutParameters.panelKeys.first { $0.panel == head }?.api ?? head)
        }
        var rest = panelPath[end...]
        while let open = rest.firstIndex(of: "["), let close = rest.firstIndex(of: "]"), open < close {
            if let index = Int(rest[rest.index(after: open)..<close]) { path = path.appending(index: index) }
            rest = rest[rest.index(after: close)...]
        }
        return path
    }
}

/// An example Unix time for messages: an hour from now.
enum CheckoutJSONTime {
    static func example(_ now: Date) -> Int64 { now.unixSeconds + 3600 }
}
