import Foundation
import PayPanel

/// The Apple Pay sheet for one payment request: what it shows and which card is chosen.
public struct PaymentSheet: Sendable, Equatable {
    /// What is in focus: a card row (index into `cards`) or the confirm button.
    public enum Focus: Sendable, Equatable {
        case card(Int)
        case confirm
    }

    /// The request as built from the panel and validated (`PaymentRequestRules`).
    public let request: PaymentRequest
    /// The validator's warnings (a total labelled like a product rather than the merchant).
    public let warnings: [String]
    /// The wallet's cards of the request's networks, in wallet order.
    public let cards: [WalletCard]
    public internal(set) var selectedIndex: Int
    public internal(set) var focus: Focus
    /// The last failed attempt on this sheet.
    public internal(set) var failure: FailureNotice?

    /// The amount the sheet pays: the request's total.
    public var amount: Amount { request.total?.amount ?? Amount(minorUnits: 0, currency: request.currency) }

    /// The chosen card, when the wallet has one for these networks.
    public var selectedCard: WalletCard? { cards.indices.contains(selectedIndex) ? cards[selectedIndex] : nil }
}
