import Foundation

// The checkout as JSON events (`paypanel checkout --json`): one object per screen shown and
// per note, each with an "event" key. Amounts are decimal strings with their currency; cards
// appear only as network and last four digits.
extension CheckoutFlow {
    /// The current screen as one event: `{"event": "<screen>", …}`.
    public func screenEvent(at now: Date) -> JSONValue {
        var members: [(String, JSONValue)] = [("event", .string(screen.rawValue))]
        switch screen {
        case .banner:
            let content = panel.content
            members += [("title", .optional(content.title)), ("subtitle", .optional(content.subtitle)), ("body", .optional(content.body))]
        case .panel:
            let selector = panel.selector
            members += [
                ("amounts", .array(selector.options.map { .string($0.decimalString) })),
                ("currency", .string(panel.panel.currency.code)), ("selected", .string(selector.selected.decimalString)),
                ("segment", .number(selector.selectedSegment)), ("expired", .bool(panel.isExpired(at: now))),
                ("update", .optional(panel.lastUpdate?.summary)),
            ]
        case .sheet:
            if let sheet { members += sheetMembers(sheet) }
        case .appForm:
            if let form {
                members += [
                    ("amount", .string(form.amount.decimalString)), ("currency", .string(form.amount.currency.code)),
                    ("card", .optional(form.maskedNumber)), ("expiry", .optional(form.expiryText.isEmpty ? nil : form.expiryText)),
                    ("holder", .optional(form.holderText.isEmpty ? nil : form.holderText)),
                    ("wallet", .array(form.walletCards.enumerated().map { Self.cardJSON($0.element, number: $0.offset + 1) })),
                    ("failure", form.failure.map(Self.failureJSON) ?? .null),
                ]
            }
        case .authorizing:
            if let authorizing {
                members += [
                    ("channel", .string(authorizing.channel.rawValue)), ("step", .string(authorizing.step.rawValue)),
                    ("card", .string(authorizing.cardLabel)), ("amount", .string(authorizing.amount.decimalString)),
                    ("currency", .string(authorizing.amount.currency.code)),
                ]
            }
        case .challenge:
            if let challenge {
                members += [
                    ("channel", .string(challenge.channel.rawValue)), ("intentId", .string(challenge.intentID)),
                    ("card", .string(challenge.cardLabel)), ("amount", .string(challenge.amount.decimalString)),
                    ("currency", .string(challenge.amount.currency.code)),
                ]
            }
        case .approved, .unresolved:
            if let report { members += reportMembers(report) }
        case .failed:
            members += [("code", .optional(problem?.code)), ("message", .optional(problem?.message))]
        case .closing:
            members += [("intentId", .optional(intent?.id))]
        case .finished:
            if let ending { return ending.json }
        }
        return .orderedObject(members)
    }

    private func sheetMembers(_ sheet: PaymentSheet) -> [(String, JSONValue)] {
        let request = sheet.request
        return [
            ("merchantIdentifier", .string(request.merchantIdentifier)),
            ("summaryItems", .array(request.summaryItems.map(\.json))),
            ("total", request.total?.json ?? .null), ("currency", .string(request.currency.code)),
            ("supportedNetworks", .array(request.supportedNetworks.map { .string($0.rawValue) })),
            ("cards", .array(sheet.cards.enumerated().map { Self.cardJSON($0.element, number: $0.offset + 1) })),
            ("selectedCard", sheet.cards.isEmpty ? .null : .number(sheet.selectedIndex + 1)),
            ("warnings", .array(sheet.warnings.map(JSONValue.string))),
            ("failure", sheet.failure.map(Self.failureJSON) ?? .null),
        ]
    }

    private func reportMembers(_ report: PaymentReport) -> [(String, JSONValue)] {
        let intent = report.intent
        var next: String?
        switch report.outcome {
        case .approved where intent.status == .requiresCapture: next = "paypanel payments capture \(intent.id)"
        case .approved: next = nil
        case .outcomeUnknown: next = "paypanel reconcile"
        default: next = "paypanel payments show \(intent.id)"
        }
        if let command = next, !configuration.commandOptions.isEmpty { next = "\(command) \(configuration.commandOptions)" }
        return [
            ("outcome", .string(report.outcome.rawValue)), ("channel", .string(report.channel.rawValue)),
            ("intentId", .string(intent.id)), ("status", .string(intent.status.rawValue)),
            ("amount", .string(intent.amount.decimalString)), ("currency", .string(intent.currency.code)),
            ("captureMethod", .string(intent.captureMethod.rawValue)), ("card", .string(report.cardLabel)),
            ("attemptId", .optional(report.attempt?.id)), ("sheetAnswer", .optional(report.attempt?.sheet?.answer?.rawValue)),
            ("captureBefore", .optional(intent.captureBefore.map(Timestamp.format))), ("next", .optional(next)),
        ]
    }

    static func cardJSON(_ card: WalletCard, number: Int) -> JSONValue {
        .orderedObject([
            ("number", .number(number)), ("label", .string(card.label)), ("network", .optional(card.network?.rawValue)),
            ("last4", .string(card.number.last4)), ("behaviour", .string(card.behaviour)),
        ])
    }

    static func failureJSON(_ failure: FailureNotice) -> JSONValue {
        .orderedObject([
            ("card", .string(failure.cardLabel)), ("code", .string(failure.failureCode)),
            ("declineCode", .optional(failure.declineCode)), ("payerMessage", .string(failure.payerMessage)),
            ("attemptId", .optional(failure.attemptID)),
        ])
    }
}

extension CheckoutNote {
    /// The note as an event: `intent_created`, `intent_canceled`, `token_sealed`, `declined`,
    /// `panel_updated`.
    public var json: JSONValue {
        switch self {
        case .intentCreated(let intent):
            return .orderedObject([
                ("event", "intent_created"), ("intentId", .string(intent.id)), ("amount", .string(intent.amount.decimalString)),
                ("currency", .string(intent.currency.code)), ("captureMethod", .string(intent.captureMethod.rawValue)),
                ("orderReference", .optional(intent.orderReference)),
            ])
        case .intentCanceled(let intent):
            return .orderedObject([
                ("event", "intent_canceled"), ("intentId", .string(intent.id)), ("status", .string(intent.status.rawValue)),
                ("reason", .optional(intent.cancellationReason?.rawValue)),
            ])
        case .tokenSealed(let token):
            return .orderedObject([
                ("event", "token_sealed"), ("version", .string(token.version)), ("bytes", .number(token.byteCount)),
                ("transactionId", .string(token.transactionID)),
            ])
        case .declined(let report):
            let notice = report.failureNotice
            return .orderedObject([
                ("event", "declined"), ("channel", .string(report.channel.rawValue)), ("intentId", .string(report.intent.id)),
                ("status", .string(report.intent.status.rawValue)), ("card", .string(notice.cardLabel)),
                ("attemptId", .optional(notice.attemptID)), ("code", .string(notice.failureCode)),
                ("declineCode", .optional(notice.declineCode)), ("payerMessage", .string(notice.payerMessage)),
            ])
        case .panelUpdated(let update):
            return .orderedObject([
                ("event", "panel_updated"), ("summary", .string(update.summary)), ("selected", .string(update.selection.decimalString)),
                ("selectionKept", .bool(update.selectionKept)), ("amounts", .string(update.optionList)),
            ])
        }
    }

    /// The note as one line of a transcript.
    public var text: String {
        switch self {
        case .intentCreated(let intent):
            "Intent \(intent.id) created for \(intent.amount) (\(intent.captureMethod.rawValue) capture\(intent.orderReference.map { ", order \($0)" } ?? ""))."
        case .intentCanceled(let intent):
            "Intent \(intent.id) canceled (\(intent.cancellationReason?.rawValue ?? intent.status.rawValue))."
        case .tokenSealed(let token):
            "Apple Pay token sealed for the merchant (\(token.version), \(token.byteCount) bytes, transactionId \(token.transactionID.prefix(12))…) and sent to the backend."
        case .declined(let report):
            "Declined: \(report.failureNotice.failureCode)\(report.failureNotice.declineCode.map { " (\($0))" } ?? ""); the payer sees: \(report.failureNotice.payerMessage)"
        case .panelUpdated(let update):
            "Panel updated: \(update.summary)"
        }
    }
}

extension CheckoutEnding {
    /// `{"event": "exit", "reason": …, "exitStatus": …, "intentId": …, "status": …}`.
    public var json: JSONValue {
        .orderedObject([
            ("event", "exit"), ("reason", .string(reason.rawValue)), ("exitStatus", .number(Int(exitCode))),
            ("intentId", .optional(intent?.id)), ("status", .optional(intent?.status.rawValue)),
            ("cancelProblem", .optional(cancelProblem?.message)),
        ])
    }

    /// One line for the end of a session: what happened and where the intent stands.
    public var summary: String {
        let intentText = intent.map { "\($0.id) \($0.status.rawValue)" }
        switch reason {
        case .paid:
            guard let intent else { return "Paid." }
            return intent.status == .requiresCapture
                ? "Authorized \(intent.amount): intent \(intent.id) requires_capture (capture it with paypanel payments capture \(intent.id))."
                : "Paid \(intent.amount): intent \(intent.id) \(intent.status.rawValue)."
        case .quit:
            var text = intentText.map { "Left the checkout; intent \($0)." } ?? "Left the checkout; no payment was started."
            if let cancelProblem { text += " Canceling it failed: \(cancelProblem.message)" }
            return text
        case .failed:
            return "The checkout ended without a payment: intent \(intentText ?? "none")."
        }
    }
}
