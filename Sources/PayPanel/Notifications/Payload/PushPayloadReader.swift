/// Reads and validates an APNs payload, reporting every problem at once with its path:
/// the document must be a JSON object of at most 4096 bytes (compact), `aps` must be an object
/// whose standard keys have the right types, `panel` must be a valid panel
/// (`PanelConfigReader`), and `payload` must be a string holding the media object.
///
/// The result separates problems that stop delivery from those the device survives: a broken
/// `payload` string is an error for the sender, but the notification is still delivered and
/// the service extension falls back (`deliverablePayload`).
public enum PushPayloadReader {
    /// What reading found.
    public struct Result: Sendable {
        /// Every error and warning.
        public let report: ValidationReport
        /// The payload, when the document is an object with a usable `aps`; nil otherwise.
        /// Check `report.isValid` before sending it.
        public let payload: PushPayload?
        /// The compact JSON size in bytes, when the input was JSON.
        public let compactByteCount: Int?

        /// The payload when every error concerns the media `payload` string, which a device
        /// tolerates (the extension delivers the best attempt); nil when anything else is wrong.
        public var deliverablePayload: PushPayload? {
            guard let payload else { return nil }
            let mediaPath = PushPayloadReader.mediaKey
            let blocking = report.errors.filter { $0.path != mediaPath && !$0.path.hasPrefix(mediaPath + ".") }
            return blocking.isEmpty ? payload : nil
        }
    }

    /// The custom key holding the panel.
    public static let panelKey = "panel"
    /// The Getui-style custom key holding the media JSON string.
    public static let mediaKey = "payload"
    /// The category whose notifications carry a payment panel.
    public static let paymentActionCategory = "PAYMENT_ACTION"

    /// Parses `data` as JSON, then validates it.
    public static func read(data: some Collection<UInt8>) -> Result {
        do {
            return read(json: try JSONParser().parse(data))
        } catch {
            var report = ValidationReport()
            report.error(.root, error.message)
            return Result(report: report, payload: nil, compactByteCount: nil)
        }
    }

    /// Validates a parsed document.
    public static func read(json: JSONValue) -> Result {
        var report = ValidationReport()
        let size = PushPayload.compactByteCount(of: json)
        if size > PushPayload.maximumByteCount {
            report.error(.root, PushPayloadSizeError(byteCount: size).message)
        }
        guard let document = json.objectValue else {
            report.error(.root, "an APNs payload must be a JSON object with an aps dictionary, not \(json.typeDescription)")
            return Result(report: report, payload: nil, compactByteCount: size)
        }
        var fields = JSONFieldReader()
        guard let apsObject = fields.object(document["aps"], at: FieldPath.root.appending("aps")) else {
            report.merge(fields.report)
            return Result(report: report, payload: nil, compactByteCount: size)
        }
        var apsReader = APSReader()
        let aps = apsReader.read(apsObject, at: FieldPath.root.appending("aps"))
        let apsValid = apsReader.reader.report.isValid
        report.merge(apsReader.reader.report)

        var panel: PanelConfig?
        if let panelValue = document[panelKey], panelValue != .null {
            let result = PanelConfigReader.read(json: panelValue, at: FieldPath.root.appending(panelKey))
            report.merge(result.report)
            panel = result.panel
            if aps.category != paymentActionCategory {
                report.warning(FieldPath.root.appending(panelKey),
                    "the panel is only shown for aps.category \(paymentActionCategory)\(aps.category.map { ", not \(JSONWriter.quoted($0))" } ?? "")")
            }
        } else if aps.category == paymentActionCategory {
            report.error(FieldPath.root.appending(panelKey),
                "is required when aps.category is \(paymentActionCategory): the expanded notification shows this panel")
        }
        if aps.category == paymentActionCategory, aps.alert?.hasVisibleText != true {
            report.error(FieldPath.root.appending("aps").appending("alert"),
                "a \(paymentActionCategory) notification needs a title or body for its banner")
        }
        let media = MediaPayloadReader.read(document[mediaKey], at: FieldPath.root.appending(mediaKey), into: &report)
        if case .parsed = media, !aps.mutableContent {
            report.warning(FieldPath.root.appending(mediaKey),
                "is only read by the service extension, which runs only with aps.mutable-content 1")
        }
        guard apsValid else { return Result(report: report, payload: nil, compactByteCount: size) }
        let payload = PushPayload(aps: aps, panel: panel, media: media, document: document)
        return Result(report: report, payload: payload, compactByteCount: size)
    }
}

/// A payload over APNs' 4096-byte limit.
public struct PushPayloadSizeError: PayPanelError, Equatable {
    public let byteCount: Int
    public var code: String { "payload_too_large" }
    public var message: String {
        "the payload is \(byteCount) bytes as compact JSON (UTF-8); APNs accepts at most \(PushPayload.maximumByteCount): "
            + "shorten it by \(byteCount - PushPayload.maximumByteCount) bytes (the body, or the panel's labels)"
    }
}
