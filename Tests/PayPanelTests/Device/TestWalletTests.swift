import Foundation
import PayPanel
import PayPanelDemo
import Testing

@Suite struct TestWalletTests {
    let wallet = TestWallet.standard(now: DeviceHarness.start)

    @Test func theDefaultCardIsAnApprovingVisa() throws {
        let first = try #require(wallet.cards.first)
        #expect(first.network == .visa)
        #expect(first.behaviour == "approves")
        #expect(first.label == "Visa •••• 4242")
    }

    @Test func declineAndThreeDSecureCardsAreLabelled() {
        let behaviours = wallet.cards.map(\.behaviour)
        #expect(behaviours.contains("declines: insufficient funds"))
        #expect(behaviours.contains("declines (generic)"))
        #expect(behaviours.contains("declines: lost card"))
        #expect(behaviours.contains("asks for 3-D Secure"))
        #expect(behaviours.contains("bank answers after 30 s"))
    }

    @Test func mastercardAndAmexCardsApprove() {
        for network in [PaymentNetwork.masterCard, .amex] {
            #expect(wallet.cards.contains { $0.network == network && $0.behaviour == "approves" }, "\(network)")
        }
    }

    @Test(arguments: [
        ([PaymentNetwork.visa, .masterCard, .amex], 9),
        ([.visa], 7),
        ([.amex], 1),
        ([.discover], 1),
        ([.jcb], 0),
    ])
    func theSheetOffersOnlyTheRequestsNetworks(networks: [PaymentNetwork], count: Int) {
        let cards = wallet.cards(accepting: networks)
        #expect(cards.count == count)
        #expect(cards.allSatisfy { $0.network.map(networks.contains) == true })
    }

    @Test func cardsExpireThreeYearsAfterTheDeviceClock() {
        #expect(wallet.cards.allSatisfy { $0.expiry.month == 12 && $0.expiry.year == 2029 })
    }

    @Test func slowCardsCarryTheProcessorsMagicHolderNames() {
        #expect(wallet.cards.compactMap(\.holderName) == ["SLOW_30S", "TIMEOUT_THEN_APPROVED"])
    }

    @Test func aCardNeverPrintsItsNumber() {
        for card in wallet.cards {
            #expect(!card.label.contains(card.number.digits))
            #expect(!"\(card)".contains(card.number.digits))
        }
    }
}

@Suite struct LineCommandTests {
    @Test(arguments: [
        ("expand", LineCommand.action(.expand)),
        ("  BUY ", .action(.buyWithApplePay)),
        ("app", .action(.payInApp)),
        ("select 2", .action(.select("2"))),
        ("select 20.00", .action(.select("20.00"))),
        ("card 3", .action(.chooseCard(3))),
        ("card 4242 4242 4242 4242", .action(.enterCardNumber("4242 4242 4242 4242"))),
        ("holder Jane  Appleseed", .action(.enterHolder("Jane  Appleseed"))),
        ("expiry 12/29", .action(.enterExpiry("12/29"))),
        ("confirm", .action(.confirm)),
        ("pay", .action(.confirm)),
        ("pass", .action(.passChallenge)),
        ("fail", .action(.failChallenge)),
        ("back", .action(.back)),
        ("done", .action(.done)),
        ("quit", .action(.quit)),
        ("wait 2.5", .wait(seconds: 2.5)),
        ("show", .show),
        ("help", .help),
        ("", .nothing),
        ("# a comment", .nothing),
    ])
    func parsesEachCommand(line: String, expected: LineCommand) throws {
        #expect(try LineCommand.parse(line).get() == expected)
    }

    @Test(arguments: [
        ("frobnicate", "'frobnicate' is not a command"),
        ("select", "'select' needs a segment number"),
        ("buy now", "'buy' takes no argument"),
        ("wait -1", "'wait' takes a number of seconds from 0 to 600"),
        ("wait 1e3", "'wait' takes a number of seconds from 0 to 600"),
        ("wait 601", "'wait' takes a number of seconds from 0 to 600"),
    ])
    func refusesWhatIsNotACommand(line: String, message: String) {
        guard case .failure(let error) = LineCommand.parse(line) else {
            Issue.record("\(line) parsed")
            return
        }
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    @Test func anEchoedCardCommandShowsOnlyTheLastFourDigits() {
        #expect(LineCommand.redacted("card 4000 0000 0000 9995") == "card •••• 9995")
        #expect(LineCommand.redacted("card 2") == "card 2")
        #expect(!LineCommand.redacted("holder 4000000000009995").contains("4000000000009995"))
    }

    @Test func anUnknownWordThatLooksLikeACardNumberIsRedactedInTheError() {
        guard case .failure(let error) = LineCommand.parse("4242424242424242") else {
            Issue.record("parsed")
            return
        }
        #expect(!error.message.contains("4242424242424242"))
    }
}
