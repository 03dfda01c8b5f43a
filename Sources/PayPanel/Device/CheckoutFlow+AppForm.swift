import Foundation

// Pay in app: the card form, filled by commands (`card`, `expiry`, `holder`), by typing, or
// by AutoFill from the wallet, and paid on the same intent as the sheet would.
extension CheckoutFlow {
    mutating func onForm(_ action: CheckoutAction, at now: Date) -> CheckoutStep {
        guard var form else { return refuse(action) }
        switch action {
        case .chooseCard(let number):
            guard form.walletCards.indices.contains(number - 1) else {
                return .rejected(Self.noSuchCard(number, count: form.walletCards.count))
            }
            form.autofill(form.walletCards[number - 1], index: number - 1)
        case .enterCardNumber(let text):
            switch Self.checkedCard(text, accepting: panel.panel) {
            case .success(let number): form.numberText = number.digits
            case .failure(let failure): return .rejected(failure.message)
            }
        case .enterExpiry(let text):
            do {
                form.expiryText = try CardExpiry(text).description
            } catch {
                return .rejected(error.message)
            }
        case .enterHolder(let text):
            form.holderText = String(text.sanitizedForTerminal().trimmingWhitespace().prefix(CardForm.holderLimit))
        case .confirm:
            return payFromForm(form, at: now)
        case .back:
            self.form = nil
            screen = .panel
            return .updated
        default:
            return refuse(action)
        }
        form.inputError = nil
        self.form = form
        return .updated
    }

    /// Checks the form as the app would before sending anything, then pays.
    private mutating func payFromForm(_ form: CardForm, at now: Date) -> CheckoutStep {
        var form = form
        let number: CardNumber
        switch Self.checkedCard(form.numberText, accepting: panel.panel) {
        case .success(let checked): number = checked
        case .failure(let failure):
            form.inputError = failure.message
            form.focus = .number
            self.form = form
            return .rejected(failure.message)
        }
        var expiry: CardExpiry?
        if !form.expiryText.isEmpty {
            do {
                expiry = try CardExpiry(form.expiryText)
            } catch {
                form.inputError = error.message
                form.focus = .expiry
                self.form = form
                return .rejected(error.message)
            }
        }
        let holder = form.holderText.trimmingWhitespace()
        form.inputError = nil
        self.form = form
        let entry = CardEntry(number: number, expiry: expiry, holderName: holder.isEmpty ? nil : holder)
        return startPayment(.card(entry), amount: form.amount, at: now)
    }

    /// A card number the merchant takes: valid (length, Luhn) and of one of the panel's networks.
    static func checkedCard(_ text: String, accepting panel: PanelConfig) -> Result<CardNumber, CardCheckFailure> {
        guard !text.trimmingWhitespace().isEmpty else {
            return .failure(CardCheckFailure("enter a card number (or AutoFill one from the wallet: card 1)"))
        }
        let number: CardNumber
        do {
            number = try CardNumber(text)
        } catch {
            return .failure(CardCheckFailure(error.message))
        }
        guard let network = number.network, panel.supportedNetworks.contains(network) else {
            let accepted = panel.supportedNetworks.map(WalletCard.displayName).joined(separator: ", ")
            let name = number.network.map(WalletCard.displayName) ?? "unknown network"
            return .failure(CardCheckFailure("\(panel.merchantName ?? "this merchant") takes \(accepted); the card ending in \(number.last4) is \(name)"))
        }
        return .success(number)
    }
}

/// Why a typed card number is refused (its message shows at most the last four digits).
struct CardCheckFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension CardForm {
    /// Fills the form from a wallet card, and moves to the Pay button.
    mutating func autofill(_ card: WalletCard, index: Int) {
        numberText = card.number.digits
        expiryText = card.expiry.description
        holderText = card.holderName ?? ""
        autofillIndex = index
        focus = .pay
    }

    /// Types `character` into the focused text field; false when it does not belong there.
    mutating func type(_ character: Character) -> Bool {
        switch focus {
        case .number:
            guard character.isASCII, character.isNumber || character == " ", numberText.count < CardForm.numberLimit else { return false }
            numberText.append(character)
        case .expiry:
            guard character.isASCII, character.isNumber || character == "/", expiryText.count < CardForm.expiryLimit else { return false }
            // "1229" reads as 12/29: the slash comes by itself after the month.
            if character.isNumber, expiryText.count == 2, !expiryText.contains("/") { expiryText.append("/") }
            expiryText.append(character)
        case .holder:
            let clean = String(character).sanitizedForTerminal()
            guard !clean.isEmpty, holderText.count < CardForm.holderLimit else { return false }
            holderText += clean
        case .autofill, .pay:
            return false
        }
        inputError = nil
        return true
    }

    /// Deletes the last character of the focused text field.
    mutating func deleteBackward() {
        switch focus {
        case .number: if !numberText.isEmpty { numberText.removeLast() }
        case .expiry: if !expiryText.isEmpty { expiryText.removeLast() }
        case .holder: if !holderText.isEmpty { holderText.removeLast() }
        case .autofill, .pay: break
        }
    }

    /// Moves the focus `offset` rows, stopping at the ends.
    mutating func moveFocus(by offset: Int) {
        let fields = Field.allCases
        guard let index = fields.firstIndex(of: focus) else { return }
        focus = fields[min(max(index + offset, 0), fields.count - 1)]
    }

    /// True when the focus is on a field that takes typing.
    public var isEditingText: Bool { focus == .number || focus == .expiry || focus == .holder }
}
