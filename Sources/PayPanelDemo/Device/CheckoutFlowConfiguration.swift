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
    /// Where the merchant acts on the intents, so the next steps the result screens suggest
    /// work there.
    public var nextSteps: NextSteps

    /// A configuration; Apple Pay for the built-in demo merchant unless told otherwise.
    public init(
        wallet: TestWallet, captureMethod: CaptureMethod = .automatic,
        applePayMerchantIdentifier: String = ApplePayTestKeys.merchantIdentifier, nextSteps: NextSteps = .commands(options: "")
    ) {
        self.wallet = wallet
        self.captureMethod = captureMethod
        self.applePayMerchantIdentifier = applePayMerchantIdentifier
        self.nextSteps = nextSteps
    }
}

/// The next steps the result screens, the JSON events and the last line suggest to the
/// merchant: `paypanel` commands on the databases the checkout used, or, against a server,
/// the server's API — a local command there would act on a database the server does not use.
public enum NextSteps: Sendable, Equatable {
    /// `paypanel` commands, with the options that reach the checkout's databases
    /// (`--db pay.sqlite`), empty for the defaults.
    case commands(options: String)
    /// The API of the `paypanel serve` at `address` (`http://127.0.0.1:8080`), called with the
    /// merchant's secret key.
    case server(address: String)

    /// Captures an authorized intent.
    public func capture(_ intentID: String) -> String {
        switch self {
        case .commands(let options): Self.command("paypanel payments capture \(intentID)", options)
        case .server(let address): "POST \(address)/v1/payment_intents/\(intentID)/capture with the secret key"
        }
    }

    /// Learns the outcome of a payment the processor has not answered.
    public func reconcile(_ intentID: String) -> String {
        switch self {
        case .commands(let options): Self.command("paypanel reconcile", options)
        // The server's worker reconciles by itself; the merchant reads what it learned.
        case .server(let address): "GET \(address)/v1/payment_intents/\(intentID) once the server has reconciled it"
        }
    }

    /// Shows an intent and its attempts.
    public func show(_ intentID: String) -> String {
        switch self {
        case .commands(let options): Self.command("paypanel payments show \(intentID)", options)
        case .server(let address): "GET \(address)/v1/payment_intents/\(intentID) with the secret key"
        }
    }

    /// Who learns the outcome of a payment left in flight: "'paypanel reconcile' learns the
    /// outcome", or the server, whose worker reconciles by itself.
    public var settles: String {
        switch self {
        case .commands(let options): "'\(Self.command("paypanel reconcile", options))' learns the outcome"
        case .server(let address): "the server at \(address) learns the outcome"
        }
    }

    private static func command(_ text: String, _ options: String) -> String {
        options.isEmpty ? text : "\(text) \(options)"
    }
}
