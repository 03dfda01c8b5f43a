import Foundation
import PayPanel
import PayPanelDemo
import PayPanelServer

/// The demo page's device side for `serve --test-root`: the standard test wallet, and tokens
/// sealed with PayPanel's test signing identity to the built-in EC test merchant, exactly as
/// `paypanel token seal` and `paypanel checkout --server` make them. Never built without
/// `--test-root`: no such server would accept these tokens anyway.
struct DemoWalletSealing: DemoTokenSealing {
    let cards: [WalletCard]
    let sealer: ApplePayTokenSealer

    init(clock: any WallClock) {
        cards = TestWallet.standard(now: clock.now()).cards
        sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, clock: clock)
    }

    var wallet: [DemoWalletCard] {
        cards.map { card in
            DemoWalletCard(id: Self.id(card), network: card.network?.rawValue ?? "unknown", last4: card.number.last4, behaviour: card.behaviour)
        }
    }

    func seal(cardID: String, amount: Amount) throws -> JSONValue {
        guard let card = cards.first(where: { Self.id($0) == cardID }) else {
            throw CLIFailure(code: "unknown_card", message: "no test wallet card \(cardID)")
        }
        let details = TokenCardDetails(
            dpan: card.number, expiry: card.expiry, amount: amount, eci: card.eci, cardholderName: card.holderName)
        return try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate).paymentTokenJSON
    }

    /// The page names cards by last four (unique in the standard wallet), never by number.
    static func id(_ card: WalletCard) -> String { "card_" + card.number.last4 }
}
