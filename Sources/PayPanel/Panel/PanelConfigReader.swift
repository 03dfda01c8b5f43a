import Foundation

/// Reads and validates a panel configuration from JSON (a panel file, or the `panel` key of a
/// push payload), reporting every problem at once.
public enum PanelConfigReader {
    public struct Result: Sendable {
        public let report: ValidationReport
        public let panel: PanelConfig?
    }

    public static func read(data: some Collection<UInt8>) -> Result {
        do {
            return read(json: try JSONParser().parse(data))
        } catch {
            var report = ValidationReport()
            report.error(.root, error.message)
            return Result(report: report, panel: nil)
        }
    }

    /// Validates `json` as a panel; `path` is where the panel sits (`panel` inside a push payload).
    public static func read(json: JSONValue, at path: FieldPath = .root) -> Result {
        var reader = JSONFieldReader()
        guard let object = reader.object(json, at: path) else { return Result(report: reader.report, panel: nil) }
        // The texts a merchant types are free text: a card number in one is refused (`freeText`).
        var merchantIdentifier = reader.merchantIdentifier(object["merchantIdentifier"], at: path.appending("merchantIdentifier"))
        if let identifier = merchantIdentifier, SensitiveDigits.containsCardNumber(identifier) {
            reader.report.error(path.appending("merchantIdentifier"), CardNumberInTextError.reason)
            merchantIdentifier = nil
        }
        let merchantName = reader.freeText(object["merchantName"], at: path.appending("merchantName"), required: false, nonEmpty: true)
        let country = reader.country(object["countryCode"], at: path.appending("countryCode"))
        let currency = reader.currency(object["currencyCode"], at: path.appending("currencyCode"))
        let networks = reader.networks(object["supportedNetworks"], at: path.appending("supportedNetworks"))
        let capabilities = reader.capabilities(object["merchantCapabilities"], at: path.appending("merchantCapabilities"))
        if let capabilities {
            PaymentRequestRules.checkCapabilities(capabilities, networks: networks,
                                                  at: path.appending("merchantCapabilities"), into: &reader.report)
        }
        let productLabel = reader.freeText(object["productLabel"], at: path.appending("productLabel"), nonEmpty: true)
        let amountOptions = readAmountOptions(object["amountOptions"], currency: currency,
                                              at: path.appending("amountOptions"), reader: &reader)
        var defaultSegment = 1
        if let segment = reader.integer(object["defaultSegment"], at: path.appending("defaultSegment"), required: false) {
            let count = amountOptions?.count ?? PanelConfig.maximumAmountOptions
            if (1...Int64(count)).contains(segment) {
                defaultSegment = Int(segment)
            } else {
                reader.report.error(path.appending("defaultSegment"), "must be a segment number from 1 to \(count), not \(SensitiveDigits.redacted(String(segment)))")
            }
        }
        let orderReference = reader.freeText(object["orderReference"], at: path.appending("orderReference"), required: false, nonEmpty: true)
        var expiresAt: Date?
        if let text = reader.string(object["expiresAt"], at: path.appending("expiresAt"), required: false) {
            do {
                expiresAt = try Timestamp.parse(text)
            } catch {
                reader.report.error(path.appending("expiresAt"), error.message)
            }
        }
        reader.warnUnknownKeys(object, known: PanelConfig.jsonKeys, at: path)

        guard reader.report.isValid, let merchantIdentifier, let country, let currency, let networks,
            let capabilities, let productLabel, let amountOptions
        else { return Result(report: reader.report, panel: nil) }
        let panel = PanelConfig(
            merchantIdentifier: merchantIdentifier, merchantName: merchantName, country: country, currency: currency,
            supportedNetworks: networks, merchantCapabilities: capabilities, productLabel: productLabel,
            amountOptions: amountOptions, defaultSegment: defaultSegment, orderReference: orderReference,
            expiresAt: expiresAt)
        return Result(report: reader.report, panel: panel)
    }

    /// Amount options are integers in minor units (500 = 5.00 USD): positive, distinct, at most
    /// the payment maximum, and at most five of them.
    private static func readAmountOptions(
        _ value: JSONValue?, currency: Currency?, at path: FieldPath, reader: inout JSONFieldReader
    ) -> [Int64]? {
        guard let value, value != .null else { return [500, 1000, 2000] }
        guard let elements = reader.array(value, at: path) else { return nil }
        guard (1...PanelConfig.maximumAmountOptions).contains(elements.count) else {
            reader.report.error(path, "must list 1 to \(PanelConfig.maximumAmountOptions) amounts, not \(elements.count)")
            return nil
        }
        var options: [Int64] = []
        var allValid = true
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index: index)
            if element.stringValue != nil {
                reader.report.error(elementPath, "must be an integer number of minor units (500 for 5.00), not a string")
                allValid = false
                continue
            }
            guard let minorUnits = reader.integer(element, at: elementPath) else {
                allValid = false
                continue
            }
            guard minorUnits > 0 else {
                reader.report.error(elementPath, "must be more than zero, in minor units (500 for 5.00)")
                allValid = false
                continue
            }
            if let currency, Amount(minorUnits: minorUnits, currency: currency).exceedsPaymentMaximum {
                reader.report.error(elementPath, "\(SensitiveDigits.redacted(String(minorUnits))) minor units is above the maximum of \(Amount.maximumTotalMajorUnits) \(currency.code)")
                allValid = false
                continue
            }
            if options.contains(minorUnits) {
                reader.report.error(elementPath, "repeats the amount \(SensitiveDigits.redacted(String(minorUnits))); each segment needs its own amount")
                allValid = false
                continue
            }
            options.append(minorUnits)
        }
        return allValid ? options : nil
    }
}
