import PayPanel
/// What the payer does on the device, whatever the input: a key in the terminal UI or a line
/// command in a script. `CheckoutFlow.handle(_:at:)` takes these.
public enum CheckoutAction: Sendable, Equatable {
    /// Open the banner into the expanded panel.
    case expand
    /// Select an amount by segment number (from 1).
    case selectSegment(Int)
    /// Select by what a person writes: a segment number from 1 to the number of segments
    /// (`2`), otherwise an amount in the panel's currency (`20`, `20.00`).
    case select(String)
    /// Move the amount selection left (-1) or right (+1).
    case moveAmount(Int)
    case buyWithApplePay
    case payInApp
    /// Wallet card `n` (from 1, as listed): the sheet's card, or the app form's AutoFill.
    case chooseCard(Int)
    /// A card number typed into the app form.
    case enterCardNumber(String)
    case enterExpiry(String)
    case enterHolder(String)
    /// Pay: the side-button double-click on the sheet, the Pay button in the app form.
    case confirm
    case passChallenge
    case failChallenge
    /// One step back: panel → banner, sheet or form → panel, challenge → abandoned.
    case back
    /// Dismiss a result screen.
    case done
    /// Leave the checkout from wherever it is.
    case quit
}

/// A key as the terminal decodes it. `CheckoutFlow.handle(key:at:)` maps keys to actions
/// depending on the screen (letters type into the app form's text fields, elsewhere they are
/// shortcuts).
public enum DeviceKey: Sendable, Equatable {
    case character(Character)
    case enter
    case tab
    /// Shift-Tab.
    case backTab
    case backspace
    case escape
    case up
    case down
    case left
    case right
    /// Ctrl-C (raw mode turns the signal off, so it arrives as a key).
    case interrupt
    /// Ctrl-D.
    case endOfInput
}
