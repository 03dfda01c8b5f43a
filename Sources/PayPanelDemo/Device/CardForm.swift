import Foundation
import PayPanel

/// The app's card form (Pay in app): what was typed, where the focus is, and AutoFill from the
/// wallet. The typed number stays in memory and is shown masked except while it is typed.
public struct CardForm: Sendable, Equatable {
    /// The form's focusable rows, top to bottom.
    public enum Field: String, Sendable, Equatable, CaseIterable {
        case autofill
        case number
        case expiry
        case holder
        case pay
    }

    public let amount: Amount
    /// The wallet cards AutoFill offers (those of the panel's networks).
    public let walletCards: [WalletCard]
    public internal(set) var numberText = ""
    public internal(set) var expiryText = ""
    public internal(set) var holderText = ""
    public internal(set) var focus: Field = .autofill
    /// The wallet card AutoFill shows (index into `walletCards`).
    public internal(set) var autofillIndex = 0
    /// The last failed attempt in the app.
    public internal(set) var failure: FailureNotice?
    /// Why the last Pay was refused before sending anything (an invalid number…).
    public internal(set) var inputError: String?

    /// The number as it may be shown: "Visa •••• 4242", or nil when nothing valid is typed.
    public var maskedNumber: String? {
        guard let number = try? CardNumber(numberText) else { return nil }
        return "\(number.network.map(WalletCard.displayName) ?? "Card") •••• \(number.last4)"
    }

    /// Only digits and spaces count as typing in the number field, and at most 23 of them.
    static let numberLimit = 23
    static let expiryLimit = 7
    static let holderLimit = 40
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
