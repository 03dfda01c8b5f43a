import PayPanel

/// The text (non-JSON) form of payments output, drawn from typed values. A replayed
/// idempotent result is decoded back into the same values, so it prints as the original did.
enum PaymentsText {
    /// The intent block: id and status, then one labelled line per fact.
    static func intent(_ intent: PaymentIntent) -> [String] {
        func money(_ minorUnits: Int64) -> String { Amount(minorUnits: minorUnits, currency: intent.currency).description }
        var lines = ["\(intent.id)  \(intent.status.rawValue)"]
        func add(_ label: String, _ value: String) {
            lines.append("  " + label.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
        }
        add("amount", "\(intent.amount) (\(intent.captureMethod.rawValue) capture)")
        add("capturable", money(intent.amountCapturable))
        add("captured", "\(money(intent.amountCaptured)), refunded \(money(intent.amountRefunded))")
        if let order = intent.orderReference { add("order", order) }
        for (key, value) in intent.metadata.sortedPairs { add("metadata", "\(JSONWriter.quoted(key)): \(JSONWriter.quoted(value))") }
        if let reason = intent.cancellationReason { add("canceled", reason.rawValue) }
        if let captureBefore = intent.captureBefore { add("capture by", Timestamp.format(captureBefore)) }
        if let processing = intent.inFlight {
            let unknown = processing.outcomeUnknownSince.map { ", outcome unknown since \(Timestamp.format($0))" } ?? ""
            add("waiting for", "\(processing.kind.rawValue) of \(processing.attemptID)\(unknown)")
        }
        if let error = intent.lastError { add("last error", failure(error)) }
        add("version", "\(intent.version), created \(Timestamp.format(intent.createdAt))")
        return lines
    }

    /// The result of a checkout operation: the intent, then the attempt (or refund) it was
    /// about, what the Apple Pay sheet was told, and what the payer sees on a failure.
    static func outcome(_ outcome: PaymentOutcome) -> [String] {
        var lines = intent(outcome.intent)
        if let attempt = outcome.attempt {
            lines.append("  attempt     \(attempt.id)  \(attempt.status.rawValue)  \(attempt.card)")
            if let error = attempt.failure {
                lines.append("  failure     \(failure(error))")
                lines.append("  payer sees  \(error.payerMessage)")
            }
        }
        if let sheet = outcome.sheetAnswer { lines.append("  sheet       answered \(sheet.rawValue)") }
        if let refund = outcome.refund {
            lines.append("  refund      \(refund.id)  \(refund.amount)  \(refund.status.rawValue)")
        }
        return lines
    }

    /// `card_declined (insufficient_funds): the card was declined …`
    static func failure(_ failure: PaymentFailure) -> String {
        let decline = failure.declineCode.map { " (\($0.rawValue))" } ?? ""
        return "\(failure.code.rawValue)\(decline): \(failure.message)"
    }

    /// `payments show`: the intent, its attempts, refunds and history.
    static func details(_ details: PaymentDetails) -> [String] {
        var lines = intent(details.intent)
        lines.append(details.attempts.isEmpty ? "Attempts: none" : "Attempts:")
        for attempt in details.attempts {
            let failure = attempt.failure.map { "  " + PaymentsText.failure($0) } ?? ""
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
