/// Readers for the payment-request fields, shared by the request validator and the panel
/// configuration (which carries the same merchant, country, currency, network and capability
/// fields). Each records its problems and returns nil when the field is unusable.
extension JSONFieldReader {
    package mutating func country(_ value: JSONValue?, at path: FieldPath) -> Country? {
        code(value, at: path) { code throws(MoneyError) in try Country(alpha2: code) }
    }

    package mutating func currency(_ value: JSONValue?, at path: FieldPath) -> Currency? {
        code(value, at: path) { code throws(MoneyError) in try Currency(code: code) }
    }

    /// A string code looked up by `lookup`, whose error message is recorded at `path`.
    private mutating func code<T>(_ value: JSONValue?, at path: FieldPath, _ lookup: (String) throws(MoneyError) -> T) -> T? {
        guard let code = string(value, at: path) else { return nil }
        do {
            return try lookup(code)
        } catch {
            report.error(path, error.message)
            return nil
        }
    }

    package mutating func merchantIdentifier(_ value: JSONValue?, at path: FieldPath) -> String? {
        guard let identifier = string(value, at: path, nonEmpty: true) else { return nil }
        let issues = PaymentRequestRules.merchantIdentifierIssues(identifier)
        issues.errors.forEach { report.error(path, $0) }
        issues.warnings.forEach { report.warning(path, $0) }
        return issues.errors.isEmpty ? identifier : nil
    }

    /// Known networks, matched case-insensitively and stored canonically; duplicates folded with a warning.
    package mutating func networks(_ value: JSONValue?, at path: FieldPath) -> [PaymentNetwork]? {
        guard let elements = array(value, at: path) else { return nil }
        if elements.isEmpty {
            report.error(path, "must list at least one network, such as visa")
            return nil
        }
        var networks: [PaymentNetwork] = []
        var allKnown = true
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index: index)
            guard let name = string(element, at: elementPath) else {
                allKnown = false
                continue
            }
            guard let network = PaymentNetwork(name: name) else {
                report.error(elementPath, "unknown payment network \(JSONWriter.quoted(name)); known networks: \(PaymentNetwork.allCases.map(\.rawValue).joined(separator: ", "))")
                allKnown = false
                continue
            }
            if networks.contains(network) {
                report.warning(elementPath, "\(JSONWriter.quoted(name)) repeats \(network.rawValue); the duplicate is ignored")
                continue
            }
            networks.append(network)
        }
        return allKnown ? networks : nil
    }

    /// Capabilities by Apple Pay JS or PassKit name; duplicates folded with a warning.
    package mutating func capabilities(_ value: JSONValue?, at path: FieldPath) -> MerchantCapabilities? {
        guard let elements = array(value, at: path) else { return nil }
        if elements.isEmpty {
            report.error(path, "must list at least one capability; supports3DS is required")
            return nil
        }
        var capabilities: MerchantCapabilities = []
        var allKnown = true
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index: index)
            guard let name = string(element, at: elementPath) else {
                allKnown = false
                continue
            }
            guard let capability = MerchantCapabilities(name: name) else {
                if let suggestion = MerchantCapabilities.suggestion(for: name) {
                    report.error(elementPath, "unknown capability \(JSONWriter.quoted(name)); names are case-sensitive: write \(JSONWriter.quoted(suggestion))")
                } else {
                    report.error(elementPath, "unknown capability \(JSONWriter.quoted(name)); use one of \(MerchantCapabilities.acceptedNames.joined(separator: ", "))")
                }
                allKnown = false
                continue
            }
            if capabilities.contains(capability) {
                report.warning(elementPath, "\(JSONWriter.quoted(name)) repeats \(capability.description); the duplicate is ignored")
                continue
            }
            capabilities.insert(capability)
        }
        return allKnown ? capabilities : nil
    }

    /// A decimal amount string in `currency`. A JSON number is rejected with the string to write instead.
    package mutating func amount(_ value: JSONValue?, at path: FieldPath, currency: Currency?) -> Amount? {
        guard let value, value != .null else {
            report.error(path, "is required")
            return nil
        }
        if let number = value.numberValue {
            report.error(path, "must be a decimal string, not a JSON number: write \(JSONWriter.quoted(suggestedAmountString(number, currency: currency)))")
            return nil
        }
        guard let text = string(value, at: path) else { return nil }
        do {
            // Without a usable currency (its own error is reported) the grammar is still checked,
            // against the finest minor unit any currency has.
            guard let currency else {
                _ = try Amount.parse(text, currency: Currency.finest)
                return nil
            }
            return try Amount.parse(text, currency: currency)
        } catch {
            report.error(path, error.message)
            return nil
        }
    }

    /// How a JSON number should have been written: `10` → `"10.00"` for USD.
    private func suggestedAmountString(_ number: JSONNumber, currency: Currency?) -> String {
        guard let currency, let amount = try? Amount.parse(number.literal, currency: currency) else {
            return number.literal
        }
        return amount.decimalString
    }
}
