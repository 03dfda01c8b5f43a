import Foundation
import PayPanel

/// What the checkout flow asks the backend to do. The flow is pure; `CheckoutBackend`
/// performs these and hands back a `BackendResult`.
public enum BackendRequest: Sendable, Equatable {
    /// Pay: with the Apple Pay sheet's card (a token is sealed, then verified and decrypted by
    /// the backend) or with a card typed into the app.
    case authorize(PaymentAuthorization)
    /// The cardholder's answer to the 3-D Secure challenge of the intent's current attempt.
    case completeChallenge(intentID: String, result: ChallengeResult)
    /// Cancel an intent nobody paid (the payer left).
    case cancel(intentID: String)
}

/// One payment: how, for how much, and on which intent.
public struct PaymentAuthorization: Sendable, Equatable {
    /// The Apple Pay sheet's wallet card, or the app form's card.
    public enum Method: Sendable, Equatable {
        case applePay(WalletCard)
        case card(CardEntry)
    }

    public let method: Method
    public let amount: Amount
    public let intent: IntentPlan

    /// The sheet for a wallet card, the app for a typed card.
    public var channel: PaymentChannel {
        if case .applePay = method { return .applePay }
        return .app
    }

    /// "Visa •••• 4242".
    public var cardLabel: String {
        switch method {
        case .applePay(let card): card.label
        case .card(let entry): entry.label
        }
    }
}

/// A card typed into the app: the number (memory only), expiry and holder when given.
public struct CardEntry: Sendable, Equatable {
    public let number: CardNumber
    public let expiry: CardExpiry?
    public let holderName: String?

    /// A typed card; the number stays in memory.
    public init(number: CardNumber, expiry: CardExpiry?, holderName: String?) {
        self.number = number
        self.expiry = expiry
        self.holderName = holderName
    }

    /// "Visa •••• 4242".
    public var label: String { "\(number.network.map(WalletCard.displayName) ?? "Card") •••• \(number.last4)" }
}

/// Which intent a payment goes to: the checkout's open intent, or a new one (replacing an
/// open intent for another amount, which is canceled first).
public enum IntentPlan: Sendable, Equatable {
    case existing(intentID: String)
    case create(NewPaymentIntent, replacing: String?)
}

/// What the backend did for one request, read back from the database.
public struct BackendResult: Sendable {
    /// The intent created for this payment, if one was.
    public var createdIntent: PaymentIntent?
    /// Intents canceled on the way (replaced for another amount, or left unpaid).
    public var canceledIntents: [PaymentIntent] = []
    /// The intent with its attempts after the operation (nil when no intent was reached).
    public var details: PaymentDetails?
    /// The Apple Pay token the device sealed, described (never its contents).
    public var token: SealedTokenNote?
    /// Set when the backend refused (an error was thrown); `details` may still be set.
    public var problem: CheckoutProblem?

    /// An empty result, filled in by `CheckoutBackend.perform`.
    public init() {}
}

/// What may be said about a sealed token: its version, size and transactionId.
public struct SealedTokenNote: Sendable, Equatable {
    /// `EC_v1` or `RSA_v1`.
    public let version: String
    /// The size of the PKPaymentToken JSON the device sent.
    public let byteCount: Int
    /// The token's header transactionId (hex), recorded with the attempt.
    public let transactionID: String
}
