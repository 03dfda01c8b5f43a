import Foundation
import PayPanel

/// What the flow is configured with: the device's wallet and what the merchant does.
public struct CheckoutFlowConfiguration: Sendable {
    public var wallet: TestWallet
    /// How new intents capture: at once, or later (`paypanel payments capture`).
    public var captureMethod: CaptureMethod
    /// The merchant whose certificate the device can seal tokens for; Apple Pay is refused for
    /// a panel of another merchant.
    public var applePayMerchantIdentifier: String
    /// Appended to the commands the result screens suggest (`--db pay.sqlite`), so they work
    /// on the databases this checkout used.
    public var commandOptions: String

    /// A configuration; Apple Pay for the built-in demo merchant unless told otherwise.
    public init(
        wallet: TestWallet, captureMethod: CaptureMethod = .automatic,
        applePayMerchantIdentifier: String = ApplePayTestKeys.merchantIdentifier, commandOptions: String = ""
    ) {
        self.wallet = wallet
        self.captureMethod = captureMethod
        self.applePayMerchantIdentifier = applePayMerchantIdentifier
        self.commandOptions = commandOptions
    }
}
