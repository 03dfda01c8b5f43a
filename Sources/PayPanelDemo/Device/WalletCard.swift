import Foundation
import PayPanel

/// One card in the device's test wallet: a device account number (public test numbers, never
/// customer data), its expiry, an optional cardholder name and what the mock processor does
/// with it, so the wallet can label each card ("declines: insufficient funds").
///
/// A wallet card prints only as "Visa •••• 4242": its `number` never reaches a screen.
public struct WalletCard: Sendable, Equatable {
    /// The device account number sealed into the Apple Pay token (or typed into the app form).
    public let number: CardNumber
    public let expiry: CardExpiry
    /// Carried in the token; the mock processor reads magic names (`SLOW_30S`) from it.
    public let holderName: String?
    /// The Electronic Commerce Indicator the token carries, when the network sends one.
    public let eci: String?
    /// What happens when it pays, for the wallet list: "approves", "asks for 3-D Secure".
    public let behaviour: String

    public init(number: CardNumber, expiry: CardExpiry, holderName: String? = nil, eci: String? = nil, behaviour: String) {
        self.number = number
        self.expiry = expiry
        self.holderName = holderName
        self.eci = eci
        self.behaviour = behaviour
    }

    public var network: PaymentNetwork? { number.network }

    /// "Visa •••• 4242".
    public var label: String {
        "\(network.map(WalletCard.displayName) ?? "Card") •••• \(number.last4)"
    }

    /// How Wallet names a network.
    public static func displayName(_ network: PaymentNetwork) -> String {
        switch network {
        case .visa: "Visa"
        case .masterCard: "Mastercard"
        case .amex: "Amex"
        case .discover: "Discover"
        case .jcb: "JCB"
        case .chinaUnionPay: "UnionPay"
        default: network.rawValue.prefix(1).uppercased() + network.rawValue.dropFirst()
        }
    }

    /// The card as a processor call carries it when typed into the app form.
    public var cardData: PaymentMethodData {
        .card(number: number, expiry: expiry, holderName: holderName)
    }
}
