import Foundation
import PayPanel

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
        let steps = configuration.nextSteps
        let next: String? = switch report.outcome {
        case .approved where intent.status == .requiresCapture: steps.capture(intent.id)
        case .approved: nil
        case .outcomeUnknown: steps.reconcile(intent.id)
        default: steps.show(intent.id)
        }
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
