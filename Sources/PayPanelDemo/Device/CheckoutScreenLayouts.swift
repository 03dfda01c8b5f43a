import Foundation
import PayPanel

/// The Apple Pay sheet: summary items and the "Pay <merchant>" total, the wallet's cards of
/// the request's networks (the chosen one ●), and the confirm button.
struct SheetLayout {
    let sheet: PaymentSheet
    let options: CheckoutRenderOptions

    var lines: [ScreenLine] {
        let full = layout(window: nil)
        guard let maximum = options.maximumHeight, full.count > maximum, sheet.cards.count > 1 else { return full }
        // Too tall for the terminal: show a window of cards around the focus, with a line
        // saying which part of the list is shown.
        let rows = max(1, sheet.cards.count - (full.count - maximum) - 1)
        let anchor = if case .card(let index) = sheet.focus { index } else { sheet.selectedIndex }
        let start = min(max(anchor - rows / 2, 0), max(sheet.cards.count - rows, 0))
        return layout(window: start..<min(start + rows, sheet.cards.count))
    }

    private func layout(window: Range<Int>?) -> [ScreenLine] {
        var box = Box(options)
        box.spread("Apple Pay", "Cancel", .title)
        box.divider()
        let request = sheet.request
        for item in request.summaryItems.dropLast() {
            box.spread(item.label.sanitizedForTerminal(), item.amount?.description ?? "pending", .detail)
        }
        if let total = request.total {
            box.spread("Pay \(total.label.sanitizedForTerminal())", total.amount?.description ?? "", .title)
        }
        box.divider()
        if let failure = sheet.failure {
            box.wrapped("✕ \(failure.cardLabel): \(failure.payerMessage)", .failure)
        }
        if sheet.cards.isEmpty {
            box.wrapped("No card in this wallet for \(request.supportedNetworks.map(WalletCard.displayName).joined(separator: ", ")).", .notice)
        }
        let labelWidth = sheet.cards.map { DisplayWidth.of($0.label) }.max() ?? 0
        let shown = window ?? sheet.cards.indices
        if let window {
            box.row("Cards \(window.lowerBound + 1)–\(window.upperBound) of \(sheet.cards.count) (↑/↓ for more)", .muted)
        }
        for index in shown {
            let card = sheet.cards[index]
            let focused = options.showsFocus && sheet.focus == .card(index)
            let radio = index == sheet.selectedIndex ? "●" : "○"
            let text = "\(focused ? "▶" : " ") \(radio) \(index + 1) \(card.label.padded(toColumns: labelWidth))  \(card.behaviour)"
            box.row(text, focused ? .focused : (index == sheet.selectedIndex ? .body : .detail))
        }
        box.divider()
        let confirmFocused = options.showsFocus && sheet.focus == .confirm
        box.centred(confirmFocused ? "▶ [ Confirm with Side Button ] ◀" : "[ Confirm with Side Button ]", confirmFocused ? .focused : .button)
        return box.finished()
    }
}

/// The app's card form: AutoFill from the wallet, number, expiry, name, and Pay.
struct AppFormLayout {
    let form: CardForm
    let panel: PanelConfig
    let options: CheckoutRenderOptions

    var lines: [ScreenLine] {
        var box = Box(options)
        box.spread((panel.merchantName ?? panel.productLabel).sanitizedForTerminal(), "Pay in app", .title)
        box.divider()
        box.spread(panel.productLabel.sanitizedForTerminal(), form.amount.description, .detail)
        box.divider()
        if let failure = form.failure {
            box.wrapped("✕ \(failure.cardLabel): \(failure.payerMessage)", .failure)
        }
        if let error = form.inputError {
            box.wrapped("! \(error)", .failure)
        }
        let autofill: String
        if !options.showsFocus {
            // Scripts fill from the wallet with `card N`: list where the numbers come from.
            autofill = form.walletCards.isEmpty ? "no wallet card" : "card 1–\(form.walletCards.count) from the wallet"
        } else if form.walletCards.indices.contains(form.autofillIndex) {
            let card = form.walletCards[form.autofillIndex]
            autofill = "◀ \(form.autofillIndex + 1) \(card.label) · \(card.behaviour) ▶"
        } else {
            autofill = "no wallet card"
        }
        field(.autofill, "AutoFill", autofill, into: &box)
        field(.number, "Card number", numberDisplay, into: &box)
        field(.expiry, "Expiry", textDisplay(form.expiryText, field: .expiry, placeholder: "MM/YY"), into: &box)
        field(.holder, "Name", textDisplay(form.holderText.sanitizedForTerminal(), field: .holder, placeholder: "(optional)"), into: &box)
        box.blank()
        let payFocused = options.showsFocus && form.focus == .pay
        let label = "Pay \(form.amount)"
        box.centred(payFocused ? "▶ [ \(label) ] ◀" : "[ \(label) ]", payFocused ? .focused : .button)
        return box.finished()
    }

    private func field(_ field: CardForm.Field, _ label: String, _ value: String, into box: inout Box) {
        let focused = options.showsFocus && form.focus == field
        box.row("\(focused ? "▶" : " ") \(label.padded(toColumns: 12)) \(value)", focused ? .focused : .body)
    }

    /// The number masked ("Visa •••• 4242"), except in the terminal while it is being typed.
    private var numberDisplay: String {
        if options.showsFocus && form.focus == .number {
            return Self.grouped(form.numberText) + "▏"
        }
        if let masked = form.maskedNumber { return masked }
        let digits = form.numberText.filter(\.isNumber).count
        return digits == 0 ? "—" : "\(digits) digits, not a valid card number"
    }

    private func textDisplay(_ text: String, field: CardForm.Field, placeholder: String) -> String {
        let editing = options.showsFocus && form.focus == field
        if text.isEmpty { return editing ? "▏" : placeholder }
        return text + (editing ? "▏" : "")
    }

    /// Digits in groups of four, as typed numbers are shown.
    static func grouped(_ text: String) -> String {
        let digits = text.filter(\.isNumber)
        var groups: [String] = []
        var current = ""
        for digit in digits {
            current.append(digit)
            if current.count == 4 {
                groups.append(current)
                current = ""
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups.joined(separator: " ")
    }
}

/// The approved and unknown-outcome screens: what happened, the intent, and what to run next.
struct ResultLayout {
    let report: PaymentReport
    let merchant: String
    let nextSteps: NextSteps
    let options: CheckoutRenderOptions

    var lines: [ScreenLine] {
        var box = Box(options)
        box.row(report.channel.title, .title)
        box.divider()
        let intent = report.intent
        switch report.outcome {
        case .approved:
            let captured = intent.status == .succeeded
            box.centred(captured ? "✓ Done" : "✓ Authorized", .success)
            box.wrapped(captured ? "Paid \(intent.amount) to \(merchant)" : "\(intent.amount) authorized for \(merchant)", .body)
            box.row("\(report.cardLabel) · \(report.channel.title)", .detail)
            box.row("\(intent.id) · \(intent.status.rawValue)", .muted)
            if !captured {
                let deadline = intent.captureBefore.map { " before \(Timestamp.format($0))" } ?? ""
                box.wrapped("Manual capture: the merchant captures it\(deadline) with", .notice)
                box.wrapped(nextSteps.capture(intent.id), .detail)
            }
        default:
            box.centred("✕ Payment Not Completed", .failure)
            box.wrapped(explanation, .body)
            box.row("\(intent.id) · \(intent.status.rawValue)", .muted)
            box.wrapped(next, .detail)
        }
        box.blank()
        box.centred(options.showsFocus ? "▶ [ Done ] ◀" : "[ Done ]", options.showsFocus ? .focused : .button)
        return box.finished()
    }

    private var explanation: String {
        switch report.outcome {
        case .outcomeUnknown where report.sheetTimedOut:
            "The bank did not answer before the sheet's deadline, so the sheet was told the payment failed. If the bank approves it late, the backend reverses it: you are not charged."
        case .outcomeUnknown:
            "The bank has not answered. The payment stays processing until reconciliation learns what happened; it is never charged twice."
        case .merchantAction:
            "The payment needs the merchant's attention (\(report.intent.lastError?.code.rawValue ?? "see the intent"))."
        default:
            "The payment ended as \(report.intent.status.rawValue)."
        }
    }

    private var next: String {
        switch report.outcome {
        case .outcomeUnknown: "Find out: " + nextSteps.reconcile(report.intent.id)
        default: "See: " + nextSteps.show(report.intent.id)
        }
    }
}
