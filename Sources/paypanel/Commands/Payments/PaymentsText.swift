import PayPanel

/// The text (non-JSON) form of payments output. Intents are drawn from their JSON form, so a
/// replayed idempotent result prints exactly as the original did.
enum PaymentsText {
    /// `10.00 USD` from minor units and a currency code (the code alone if it is unknown).
    static func money(_ minorUnits: Int64?, _ code: String?) -> String {
        guard let minorUnits, let code else { return "-" }
        guard let currency = try? Currency(code: code) else { return "\(minorUnits) \(code) minor units" }
        return Amount(minorUnits: minorUnits, currency: currency).description
    }

    /// The intent block: id and status, then one labelled line per fact.
    static func intent(_ json: JSONValue) -> [String] {
        let currency = json["currency"]?.stringValue
        func amount(_ key: String) -> String { money(json[key]?.int64Value, currency) }
        var lines = ["\(json["id"]?.stringValue ?? "?")  \(json["status"]?.stringValue ?? "?")"]
        func add(_ label: String, _ value: String) {
            lines.append("  " + label.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
        }
        add("amount", "\(amount("amount")) (\(json["captureMethod"]?.stringValue ?? "?") capture)")
        add("capturable", amount("amountCapturable"))
        add("captured", "\(amount("amountCaptured")), refunded \(amount("amountRefunded"))")
        if let order = json["orderReference"]?.stringValue { add("order", order) }
        if let reason = json["cancellationReason"]?.stringValue { add("canceled", reason) }
        if let captureBefore = json["captureBefore"]?.stringValue { add("capture by", captureBefore) }
        if let processing = json["processing"], processing != .null {
            let unknown = processing["outcomeUnknownSince"]?.stringValue.map { ", outcome unknown since \($0)" } ?? ""
            add("waiting for", "\(processing["operation"]?.stringValue ?? "?") of \(processing["attemptId"]?.stringValue ?? "?")\(unknown)")
        }
        if let error = json["lastError"], error != .null { add("last error", failure(error)) }
        add("version", "\(json["version"]?.int64Value.map(String.init) ?? "?"), created \(json["createdAt"]?.stringValue ?? "?")")
        return lines
    }

    /// `card_declined (insufficient_funds): the card was declined …`
    static func failure(_ json: JSONValue) -> String {
        let decline = json["declineCode"]?.stringValue.map { " (\($0))" } ?? ""
        return "\(json["code"]?.stringValue ?? "?")\(decline): \(json["message"]?.stringValue ?? "")"
    }

    /// `payments show`: the intent, its attempts, refunds and history.
    static func details(_ details: PaymentDetails) -> [String] {
        var lines = intent(details.intent.json)
        lines.append(details.attempts.isEmpty ? "Attempts: none" : "Attempts:")
        for attempt in details.attempts {
            let failure = attempt.failure.map { "  " + PaymentsText.failure($0.json) } ?? ""
            lines.append("  \(attempt.sequence). \(attempt.id)  \(attempt.status.rawValue)  \(attempt.source.rawValue) \(attempt.card)\(failure)")
        }
        lines.append(details.refunds.isEmpty ? "Refunds: none" : "Refunds:")
        for refund in details.refunds {
            lines.append("  \(refund.id)  \(refund.amount)  \(refund.status.rawValue)\(refund.failureCode.map { "  \($0)" } ?? "")")
        }
        lines.append("History:")
        for event in details.events {
            let change = event.fromStatus.map { "\($0.rawValue) → " } ?? "→ "
            let version = "v\(event.version)".padding(toLength: 4, withPad: " ", startingAt: 0)
            lines.append("  \(version) \(Timestamp.format(event.occurredAt))  \(event.type.padding(toLength: 32, withPad: " ", startingAt: 0)) \(change)\(event.toStatus?.rawValue ?? "?")")
        }
        return lines
    }

    /// The header of `payments list`.
    static let listHeader = listRow(id: "ID", status: "STATUS", amount: "AMOUNT", created: "CREATED", order: "ORDER")

    /// One `payments list` row. Fixed widths: the list streams, so it cannot measure its rows.
    static func listRow(_ intent: PaymentIntent) -> String {
        listRow(id: intent.id, status: intent.status.rawValue, amount: intent.amount.description,
                created: Timestamp.format(intent.createdAt), order: intent.orderReference ?? "")
    }

    private static func listRow(id: String, status: String, amount: String, created: String, order: String) -> String {
        let amountColumn = String(repeating: " ", count: max(0, 16 - amount.count)) + amount
        return "\(id.padding(toLength: 28, withPad: " ", startingAt: 0)) \(status.padding(toLength: 25, withPad: " ", startingAt: 0)) \(amountColumn)  \(created.padding(toLength: 24, withPad: " ", startingAt: 0)) \(order)"
            .trimmingTrailingSpaces()
    }
}
