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

    /// The result of a checkout operation: the intent, then the attempt (or refund) it was
    /// about, what the Apple Pay sheet was told, and what the payer sees on a failure.
    static func outcome(_ json: JSONValue) -> [String] {
        var lines = intent(json["intent"] ?? .null)
        if let attempt = json["attempt"], attempt != .null {
            let card = cardSummary(attempt)
            lines.append("  attempt     \(attempt["id"]?.stringValue ?? "?")  \(attempt["status"]?.stringValue ?? "?")  \(card)")
            if let error = attempt["failure"], error != .null {
                lines.append("  failure     \(failure(error))")
                if let payer = error["payerMessage"]?.stringValue { lines.append("  payer sees  \(payer)") }
            }
        }
        if let sheet = json["sheetAnswer"]?.stringValue { lines.append("  sheet       answered \(sheet)") }
        if let refund = json["refund"], refund != .null {
            let amount = money(refund["amount"]?.int64Value, refund["currency"]?.stringValue ?? json["intent"]?["currency"]?.stringValue)
            lines.append("  refund      \(refund["id"]?.stringValue ?? "?")  \(amount)  \(refund["status"]?.stringValue ?? "?")")
        }
        return lines
    }

    /// `visa •••• 4242 exp 12/30` from an attempt's JSON.
    static func cardSummary(_ card: JSONValue) -> String {
        var text = "\(card["network"]?.stringValue ?? "card") •••• \(card["last4"]?.stringValue ?? "????")"
        if let month = card["expiryMonth"]?.int64Value, let year = card["expiryYear"]?.int64Value {
            text += " exp \(month < 10 ? "0" : "")\(month)/\(year % 100 < 10 ? "0" : "")\(year % 100)"
        }
        return text
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
            if event.type == "operator_resolved" { lines.append(resolutionLine(event.json["data"] ?? .null)) }
        }
        return lines
    }

    /// Who resolved an intent, how and why: `mark_authorized by alice (forced): "…"`.
    private static func resolutionLine(_ data: JSONValue) -> String {
        let forced = data["forced"] == .bool(true) ? " (forced)" : ""
        let note = data["note"]?.stringValue.map { ": " + JSONWriter.quoted($0) } ?? ""
        return "       \(data["resolution"]?.stringValue ?? "?") by \(data["operator"]?.stringValue ?? "?")\(forced)\(note)"
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
