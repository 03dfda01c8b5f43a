import Foundation
import PayPanel

/// The cards a test device holds. The first card is the default: an approving Visa. Then
/// approving Mastercard, Amex and Discover cards, the decline and 3-D Secure test cards, and
/// two cards whose holder name makes the mock processor slow or silent, for the Apple Pay
/// sheet's 30-second deadline. The sheet shows only the cards of the request's networks.
public struct TestWallet: Sendable, Equatable {
    public let cards: [WalletCard]

    public init(cards: [WalletCard]) {
        self.cards = cards
    }

    /// The standard test wallet, its cards expiring in December three years after `now` (so
    /// they are valid whatever `--now` says).
    public static func standard(now: Date) -> TestWallet {
        let year = min(max(Calendar.utc.component(.year, from: now) + 3, 2000), 2099)
        func card(_ digits: String, holder: String? = nil, eci: String? = nil, _ behaviour: String) -> WalletCard {
            // Literal test numbers and a month/year in range: a failure here is a typo in this table.
            guard let number = try? CardNumber(digits), let expiry = try? CardExpiry(month: 12, year: year) else {
                preconditionFailure("test wallet card \(digits.suffix(4)) is not a valid card")
            }
            return WalletCard(number: number, expiry: expiry, holderName: holder, eci: eci, behaviour: behaviour)
        }
        return TestWallet(cards: [
            card("4242424242424242", eci: "05", "approves"),
            card("5555555555554444", "approves"),
            card("378282246310005", eci: "05", "approves"),
            card("6011111111111117", "approves"),
            card("4000000000009995", eci: "05", "declines: insufficient funds"),
            card("4000000000000002", eci: "05", "declines (generic)"),
            card("4000000000009987", eci: "05", "declines: lost card"),
            card("4000002760003184", eci: "05", "asks for 3-D Secure"),
            card("4000056655665556", holder: "SLOW_30S", eci: "05", "bank answers after 30 s"),
            card("4012888888881881", holder: "TIMEOUT_THEN_APPROVED", eci: "05", "bank never answers"),
        ])
    }

    /// The cards of `networks`, in wallet order: what the Apple Pay sheet offers.
    public func cards(accepting networks: [PaymentNetwork]) -> [WalletCard] {
        cards.filter { card in card.network.map(networks.contains) ?? false }
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC: years and months as timestamps are written.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        return calendar
    }()
}
