import Foundation
import PayPanel

/// One card of the test wallet as the demo page may see it: no card number, only what the
/// Apple Pay sheet shows (network and last four) and what the card makes the mock bank do.
public struct DemoWalletCard: Sendable, Equatable {
    /// How the page names the card to `POST /v1/demo/tokens`.
    public let id: String
    /// The PassKit network name, as in `supported_networks` (`visa`, `masterCard`, …).
    public let network: String
    public let last4: String
    public let behaviour: String

    public init(id: String, network: String, last4: String, behaviour: String) {
        self.id = id
        self.network = network
        self.last4 = last4
        self.behaviour = behaviour
    }
}

/// What the device does in the demo: seal an Apple Pay token for a test wallet card, as
/// `paypanel token seal` does. Injected by `serve` (the sealer and the test identity live in
/// PayPanelDemo, which this server target must not depend on).
public protocol DemoTokenSealing: Sendable {
    var wallet: [DemoWalletCard] { get }
    /// The PKPaymentToken JSON for wallet card `cardID`, approving `amount`.
    func seal(cardID: String, amount: Amount) throws -> JSONValue
}
