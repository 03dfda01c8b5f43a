import Foundation
import PayPanel

// The terminal UI's keys. Most keys become the same actions line commands produce; focus
// movement and typing into the app form exist only here.
extension CheckoutFlow {
    /// Applies one key at `now`: ←/→ or digits select the amount, Tab/↑/↓ move between buttons
    /// and cards, Enter activates, `a` Buy with Apple Pay, `p` Pay in app, Esc goes back, `q`
    /// quits (Ctrl-C too, wherever the focus is). In the app form's text fields, characters are
    /// typed instead.
    public mutating func handle(key: DeviceKey, at now: Date) -> CheckoutStep {
        if key == .interrupt || key == .endOfInput { return pending == nil ? handle(.quit, at: now) : .rejected(waitMessage) }
        if pending != nil { return .rejected(waitMessage) }
        switch screen {
        case .banner: return bannerKey(key, at: now)
        case .panel: return panelKey(key, at: now)
        case .sheet: return sheetKey(key, at: now)
        case .appForm: return formKey(key, at: now)
        case .challenge: return challengeKey(key, at: now)
        case .approved, .unresolved, .failed:
            switch key {
            case .enter, .escape, .character(" "), .character("q"): return handle(.done, at: now)
            default: return .rejected("press Enter to finish")
            }
        case .authorizing, .closing, .finished:
            return .rejected(waitMessage)
        }
    }

    /// Said to a key pressed while a payment is in flight; who settles a payment left then
    /// depends on where the merchant is (a server reconciles by itself).
    var waitMessage: String {
        "waiting for the bank's answer (Ctrl-C leaves now; the payment then stays processing until \(configuration.nextSteps.settles))"
    }

    private mutating func bannerKey(_ key: DeviceKey, at now: Date) -> CheckoutStep {
        switch key {
        case .enter, .down, .character(" "), .character("e"): handle(.expand, at: now)
        case .escape, .character("q"): handle(.quit, at: now)
        default: .rejected("press Enter to expand the notification, q to dismiss it")
        }
    }

    private mutating func panelKey(_ key: DeviceKey, at now: Date) -> CheckoutStep {
        switch key {
        case .left: return handle(.moveAmount(-1), at: now)
        case .right: return handle(.moveAmount(1), at: now)
        case .tab, .down, .backTab, .up:
            let forward = key == .tab || key == .down
            let buttons = PanelButton.allCases
            let index = buttons.firstIndex(of: panelFocus) ?? 0
            panelFocus = buttons[(index + (forward ? 1 : buttons.count - 1)) % buttons.count]
            return .updated
        case .enter: return handle(panelFocus == .buyWithApplePay ? .buyWithApplePay : .payInApp, at: now)
        case .character("a"): return handle(.buyWithApplePay, at: now)
        case .character("p"): return handle(.payInApp, at: now)
        case .character("q"): return handle(.quit, at: now)
        case .escape: return handle(.back, at: now)
        case .character(let character):
            guard let segment = character.wholeNumberValue, segment >= 1 else { return .rejected("that key does nothing on the panel") }
            return handle(.selectSegment(segment), at: now)
        default: return .rejected("that key does nothing on the panel")
        }
    }

    private mutating func sheetKey(_ key: DeviceKey, at now: Date) -> CheckoutStep {
        guard var sheet else { return .rejected("no sheet") }
        // Focus order: the cards, then Confirm. Moving onto a card chooses it (a radio group).
        let stops = sheet.cards.count + 1
        let position: Int = if case .card(let index) = sheet.focus { index } else { sheet.cards.count }
        switch key {
        case .tab, .down, .backTab, .up:
            let forward = key == .tab || key == .down
            let next = (position + (forward ? 1 : stops - 1)) % stops
            if next < sheet.cards.count {
                sheet.focus = .card(next)
                sheet.selectedIndex = next
            } else {
                sheet.focus = .confirm
            }
            self.sheet = sheet
            return .updated
        case .enter:
            if case .card = sheet.focus {
                sheet.focus = .confirm
                self.sheet = sheet
                return .updated
            }
            return handle(.confirm, at: now)
        case .escape: return handle(.back, at: now)
        case .character("q"): return handle(.quit, at: now)
        case .character(let character):
            guard let number = character.wholeNumberValue, number >= 1 else { return .rejected("that key does nothing on the sheet") }
            return handle(.chooseCard(number), at: now)
        default: return .rejected("that key does nothing on the sheet")
        }
    }

    private mutating func formKey(_ key: DeviceKey, at now: Date) -> CheckoutStep {
        guard var form else { return .rejected("no form") }
        switch key {
        case .tab, .down:
            form.moveFocus(by: 1)
        case .backTab, .up:
            form.moveFocus(by: -1)
        case .left, .right:
            guard form.focus == .autofill, !form.walletCards.isEmpty else { return .updated }
            let count = form.walletCards.count
            form.autofillIndex = (form.autofillIndex + (key == .right ? 1 : count - 1)) % count
        case .backspace:
            form.deleteBackward()
        case .escape:
            return handle(.back, at: now)
        case .enter:
            switch form.focus {
            case .autofill:
                return form.walletCards.isEmpty ? .rejected("the wallet has no card for this merchant") : handle(.chooseCard(form.autofillIndex + 1), at: now)
            case .pay:
                return handle(.confirm, at: now)
            case .number, .expiry, .holder:
                form.moveFocus(by: 1)
            }
        case .character(let character):
            if form.isEditingText {
                guard form.type(character) else { return .rejected("that character does not go in this field") }
            } else if character == "q" {
                return handle(.quit, at: now)
            } else if let number = character.wholeNumberValue, number >= 1 {
                return handle(.chooseCard(number), at: now)
            } else {
                return .rejected("move to a field to type (Tab)")
            }
        default:
            return .rejected("that key does nothing in the form")
        }
        self.form = form
        return .updated
    }

    private mutating func challengeKey(_ key: DeviceKey, at now: Date) -> CheckoutStep {
        guard var challenge else { return .rejected("no challenge") }
        switch key {
        case .tab, .backTab, .left, .right, .up, .down:
            challenge.focus = challenge.focus == .pass ? .fail : .pass
            self.challenge = challenge
            return .updated
        case .enter: return handle(challenge.focus == .pass ? .passChallenge : .failChallenge, at: now)
        case .escape: return handle(.back, at: now)
        case .character("q"): return handle(.quit, at: now)
        default: return .rejected("choose Pass or Fail and press Enter")
        }
    }
}
