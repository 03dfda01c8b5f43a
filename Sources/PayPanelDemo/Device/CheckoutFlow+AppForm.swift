import Foundation
import PayPanel

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
