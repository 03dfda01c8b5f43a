/// Validates the JSON form of a payment request, reporting every violation at once.
public enum PaymentRequestValidator {
    /// The outcome: the report, and the typed request when there were no errors.
    public struct Result: Sendable {
        public let report: ValidationReport
        public let request: PaymentRequest?
    }

    /// Validates raw bytes: JSON syntax first, then the request rules.
    public static func validate(data: some Collection<UInt8>) -> Result {
        do {
            return validate(json: try JSONParser().parse(data))
        } catch {
            var report = ValidationReport()
            report.error(.root, error.message)
            return Result(report: report, request: nil)
        }
    }

    public static func validate(json: JSONValue) -> Result {
        var reader = JSONFieldReader()
        guard let object = reader.object(json, at: .root) else {
            return Result(report: reader.report, request: nil)
        }
        let root = FieldPath.root
        let merchantIdentifier = reader.merchantIdentifier(object["merchantIdentifier"], at: root.appending("merchantIdentifier"))
        let country = reader.country(object["countryCode"], at: root.appending("countryCode"))
        let currency = reader.currency(object["currencyCode"], at: root.appending("currencyCode"))
        let networks = reader.networks(object["supportedNetworks"], at: root.appending("supportedNetworks"))
        let capabilities = reader.capabilities(object["merchantCapabilities"], at: root.appending("merchantCapabilities"))
        if let capabilities {
            PaymentRequestRules.checkCapabilities(capabilities, networks: networks,
                                                  at: root.appending("merchantCapabilities"), into: &reader.report)
        }
        let items = readSummaryItems(object["paymentSummaryItems"], currency: currency,
                                     merchantIdentifier: merchantIdentifier, reader: &reader)
        reader.warnUnknownKeys(object, known: PaymentRequest.jsonKeys, at: root)

        guard reader.report.isValid, let merchantIdentifier, let country, let currency, let networks,
            let capabilities, let items
        else { return Result(report: reader.report, request: nil) }
        let request = PaymentRequest(
            merchantIdentifier: merchantIdentifier, country: country, currency: currency,
            supportedNetworks: networks, merchantCapabilities: capabilities, summaryItems: items)
        return Result(report: reader.report, request: request)
    }

    private static let itemKeys: Set<String> = ["label", "amount", "type"]

    private static func readSummaryItems(
        _ value: JSONValue?, currency: Currency?, merchantIdentifier: String?, reader: inout JSONFieldReader
    ) -> [SummaryItem]? {
        let path = FieldPath.root.appending("paymentSummaryItems")
        guard let elements = reader.array(value, at: path) else { return nil }
        var decoded: [(index: Int, item: SummaryItem, totalHasMinusSign: Bool)] = []
        for (index, element) in elements.enumerated() {
            let itemPath = path.appending(index: index)
            let isTotal = index == elements.count - 1
            guard let object = reader.object(element, at: itemPath) else { continue }
            reader.warnUnknownKeys(object, known: itemKeys, at: itemPath)
            let label = reader.string(object["label"], at: itemPath.appending("label"))
            var type = SummaryItem.ItemType.final
            if let typeName = reader.string(object["type"], at: itemPath.appending("type"), required: false) {
                guard let parsed = SummaryItem.ItemType(rawValue: typeName) else {
                    reader.report.error(itemPath.appending("type"), "must be \"final\" or \"pending\", not \(JSONWriter.quoted(typeName))")
                    continue
                }
                type = parsed
            }
            var amount: Amount?
            let amountValue = object["amount"]
            let amountMissing = amountValue == nil || amountValue == .null
            if amountMissing && type == .pending && !isTotal {
                amount = nil  // a pending line item may leave its amount out
            } else if amountMissing && isTotal {
                reader.report.error(itemPath.appending("amount"), PaymentRequestRules.missingTotalAmount)
                PaymentRequestRules.checkLabel(label, isTotal: isTotal, at: itemPath.appending("label"), into: &reader.report)
                continue
            } else {
                guard let parsed = reader.amount(amountValue, at: itemPath.appending("amount"), currency: currency) else {
                    PaymentRequestRules.checkLabel(label, isTotal: isTotal, at: itemPath.appending("label"), into: &reader.report)
                    continue
                }
                amount = parsed
            }
            guard let label else { continue }
            let minusSign = isTotal && (amountValue?.stringValue?.hasPrefix("-") ?? false)
            decoded.append((index, SummaryItem(label: label, amount: amount, type: type), minusSign))
        }
        PaymentRequestRules.checkSummaryItems(decoded, count: elements.count, merchantIdentifier: merchantIdentifier,
                                              at: path, into: &reader.report)
        return decoded.count == elements.count ? decoded.map(\.item) : nil
    }
}
