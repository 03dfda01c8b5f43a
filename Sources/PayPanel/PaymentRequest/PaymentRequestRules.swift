/// The rules Apple applies to a payment request, on typed values. The JSON validator and the
/// panel builder both run them, so a request is judged the same way however it was made.
public enum PaymentRequestRules {
    /// Runs every rule on a typed request.
    public static func check(_ request: PaymentRequest) -> ValidationReport {
        var report = ValidationReport()
        let issues = merchantIdentifierIssues(request.merchantIdentifier)
        issues.errors.forEach { report.error(FieldPath.root.appending("merchantIdentifier"), $0) }
        issues.warnings.forEach { report.warning(FieldPath.root.appending("merchantIdentifier"), $0) }
        if request.supportedNetworks.isEmpty {
            report.error(FieldPath.root.appending("supportedNetworks"), "must list at least one network, such as visa")
        }
        checkCapabilities(request.merchantCapabilities, networks: request.supportedNetworks,
                          at: FieldPath.root.appending("merchantCapabilities"), into: &report)
        checkSummaryItems(request.summaryItems.enumerated().map { ($0.offset, $0.element, false) },
                          merchantIdentifier: request.merchantIdentifier,
                          at: FieldPath.root.appending("paymentSummaryItems"), into: &report)
        return report
    }

    /// A merchant identifier is reverse-DNS shaped (`merchant.com.example.shop`); Apple issues
    /// them with a `merchant.` prefix, so anything else is probably a mistake (a warning).
    public static func merchantIdentifierIssues(_ identifier: String) -> (errors: [String], warnings: [String]) {
        let labels = identifier.split(separator: ".", omittingEmptySubsequences: false)
        let labelIsValid: (Substring) -> Bool = { label in
            !label.isEmpty && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
        guard labels.count >= 2, labels.allSatisfy(labelIsValid) else {
            return ([
                "\(JSONWriter.quoted(identifier)) is not reverse-DNS shaped: use dot-separated labels of letters, digits and '-', such as merchant.com.example.shop"
            ], [])
        }
        if labels[0] != "merchant" {
            return ([], ["\(JSONWriter.quoted(identifier)) does not start with \"merchant.\"; Apple merchant identifiers do (merchant.com.example.shop)"])
        }
        if labels.count < 3 {
            return ([], ["\(JSONWriter.quoted(identifier)) has no domain after \"merchant.\"; Apple merchant identifiers are merchant.<reverse domain>"])
        }
        return ([], [])
    }

    /// 3-D Secure is required; EMV without 3DS is only for China UnionPay.
    static func checkCapabilities(
        _ capabilities: MerchantCapabilities, networks: [PaymentNetwork]?, at path: FieldPath,
        into report: inout ValidationReport
    ) {
        guard !capabilities.contains(.threeDSecure) else { return }
        if capabilities.contains(.emv), let networks, !networks.isEmpty, networks.allSatisfy({ $0 == .chinaUnionPay }) {
            return
        }
        if capabilities.contains(.emv) {
            report.error(path, "supportsEMV without supports3DS is only allowed when chinaUnionPay is the only network: add supports3DS")
        } else {
            report.error(path, "must include supports3DS (3-D Secure), which Apple Pay requires")
        }
    }

    /// Summary-item rules. `items` holds the items that decoded, by position; `totalHasMinusSign`
    /// flags a total written with '-' (rejected even on zero, which the typed amount cannot show).
    static func checkSummaryItems(
        _ items: [(index: Int, item: SummaryItem, totalHasMinusSign: Bool)], count: Int? = nil,
        merchantIdentifier: String?, at path: FieldPath, into report: inout ValidationReport
    ) {
        let itemCount = count ?? items.count
        guard itemCount > 0 else {
            report.error(path, "must have at least one item: the last one is the total")
            return
        }
        let totalIndex = itemCount - 1
        for (index, item, totalHasMinusSign) in items {
            let itemPath = path.appending(index: index)
            checkLabel(item.label, isTotal: index == totalIndex, at: itemPath.appending("label"), into: &report)
            guard let amount = item.amount else {
                if index == totalIndex {
                    report.error(itemPath.appending("amount"), missingTotalAmount)
                }
                continue
            }
            if amount.exceedsPaymentMaximum {
                report.error(itemPath.appending("amount"), "\(JSONWriter.quoted(amount.decimalString)) is above the maximum of \(Amount.maximumTotalMajorUnits) \(amount.currency.code)")
            } else if index == totalIndex && amount.minorUnits < 0 {
                report.error(itemPath.appending("amount"), "the total may not be negative: the amount charged must be 0 or more")
            } else if index == totalIndex && totalHasMinusSign {
                report.error(itemPath.appending("amount"), "the total may not carry a minus sign, even on zero: write \(JSONWriter.quoted(amount.decimalString))")
            }
        }
        if let total = items.first(where: { $0.index == totalIndex })?.item {
            warnIfTotalLabelLooksLikeAProduct(total, lineItems: items.filter { $0.index != totalIndex }.map(\.item),
                                              merchantIdentifier: merchantIdentifier,
                                              at: path.appending(index: totalIndex).appending("label"), into: &report)
        }
    }

    static let missingTotalAmount = "is required on the total (the last item), even when it is pending"

    /// Labels are shown on the sheet; the total's is shown as "Pay <label>".
    static func checkLabel(_ label: String?, isTotal: Bool, at path: FieldPath, into report: inout ValidationReport) {
        guard let label, label.trimmingWhitespace().isEmpty else { return }
        report.error(path, isTotal
            ? "must not be empty: the total's label is shown as \"Pay <label>\"; use the merchant's name"
            : "must not be empty")
    }

    /// The total's label should be the merchant's name (Apple shows "Pay <label>"). We cannot
    /// know the name for sure, so this only warns: when the label repeats a line item's label,
    /// or shares no word with the merchant identifier (merchant.com.sample.ApplePayAction → sample, apple, pay, action).
    static func warnIfTotalLabelLooksLikeAProduct(
        _ total: SummaryItem, lineItems: [SummaryItem], merchantIdentifier: String?, at path: FieldPath,
        into report: inout ValidationReport
    ) {
        let label = total.label.trimmingWhitespace()
        guard !label.isEmpty else { return }
        if lineItems.contains(where: { $0.label.trimmingWhitespace() == label }) {
            report.warning(path, "the total's label \(JSONWriter.quoted(label)) repeats a line item's label; Apple Pay shows \(JSONWriter.quoted("Pay " + label)): use the merchant's name")
            return
        }
        guard let merchantIdentifier else { return }
        let merchantWords = Set(words(in: merchantIdentifier)).subtracting(["merchant", "com", "net", "org", "www", "app"])
        let labelWords = Set(words(in: label))
        if merchantWords.isDisjoint(with: labelWords) {
            report.warning(path, "the total's label \(JSONWriter.quoted(label)) looks like a product, not the merchant's name (\(JSONWriter.quoted(merchantIdentifier))); Apple Pay shows \(JSONWriter.quoted("Pay " + label)): use the business name")
        }
    }

    /// Lower-cased words of three or more letters, splitting on punctuation and camelCase.
    static func words(in text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in text {
            if character.isLetter || character.isNumber {
                if character.isUppercase && previousWasLower && !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current.append(character)
                previousWasLower = character.isLowercase
            } else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }.filter { $0.count >= 3 }
    }
}
