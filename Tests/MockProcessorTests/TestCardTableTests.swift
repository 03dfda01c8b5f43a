import Foundation
import MockProcessor
import PayPanel
import Testing
import TestSupport

/// Stripe's test cards are one table (`StripeTestCards`); docs/mock-processor.md holds it as
/// generated (regenerate with `PAYPANEL_UPDATE_DOCS=1 swift test --filter TestCardTableTests`).
@Suite struct TestCardTableTests {
    static let path = RepositoryPaths.root.appending(path: "docs/mock-processor.md").path(percentEncoded: false)
    static let begin = "<!-- test-cards:begin -->\n"
    static let end = "<!-- test-cards:end -->"

    @Test func theDocsHoldTheGeneratedTestCardTable() throws {
        var doc = try String(contentsOfFile: Self.path, encoding: .utf8)
        let begin = try #require(doc.range(of: Self.begin), "docs/mock-processor.md lost its \(Self.begin) marker")
        let end = try #require(doc.range(of: Self.end), "docs/mock-processor.md lost its \(Self.end) marker")
        let expected = StripeTestCards.markdown()
        if ProcessInfo.processInfo.environment["PAYPANEL_UPDATE_DOCS"] == "1" {
            doc.replaceSubrange(begin.upperBound..<end.lowerBound, with: expected)
            try Data(doc.utf8).write(to: URL(fileURLWithPath: Self.path))
            return
        }
        #expect(
            String(doc[begin.upperBound..<end.lowerBound]) == expected,
            "docs/mock-processor.md's test card table is stale: run PAYPANEL_UPDATE_DOCS=1 swift test --filter TestCardTableTests")
    }

    @Test func numbersAndIdsAreValidAndEachAppearsOnce() throws {
        var numbers = Set<String>()
        var ids = Set<String>()
        for card in StripeTestCards.all {
            #expect(try CardNumber(card.number).digits == card.number)
            #expect(numbers.insert(card.number).inserted, "\(card.number) is in the table twice")
            for id in card.paymentMethods {
                #expect(id.hasPrefix("pm_card_"))
                #expect(ids.insert(id).inserted, "\(id) is in the table twice")
                #expect(StripeTestCards.card(paymentMethod: id)?.number == card.number)
            }
            #expect(StripeTestCards.card(number: card.number)?.paymentMethods == card.paymentMethods)
            #expect(["credit", "debit", "prepaid"].contains(card.funding))
        }
    }

    /// Every behaviour is decided at once, and every decline has Stripe's error: a row cannot
    /// name a fault, a slow answer or a decline the wire does not know how to word.
    @Test func everyBehaviourIsAnImmediateOutcomeWithStripesError() throws {
        for card in StripeTestCards.all {
            for trigger in [card.onSession, card.offSession] {
                let outcome = StripeTestCards.outcome(trigger)
                let status = try #require(outcome["status"]?.stringValue, "\(card.number): \(trigger.name) has no immediate outcome")
                #expect(["succeeded", "requires_payment_method", "requires_action"].contains(status))
                if status == "requires_payment_method" {
                    #expect(outcome["error"]?["decline_code"]?.stringValue != nil, "\(trigger.name) has no Stripe error")
                }
                if status == "requires_action" {
                    #expect(outcome["after_authentication"]?["status"]?.stringValue != nil)
                }
            }
            // Off session nothing can ask the payer: a 3-D Secure card is refused or goes through.
            #expect(StripeTestCards.outcome(card.offSession)["status"] != "requires_action", "\(card.number) asks off session")
        }
    }

    /// Independent of the table: what Stripe's testing page says of the cards the issue names.
    @Test(arguments: [
        ("pm_card_visa_chargeDeclined", "4000000000000002", "GENERIC_DECLINE", "GENERIC_DECLINE"),
        ("pm_card_chargeDeclinedIncorrectCvc", "4000000000000127", "INCORRECT_CVC", "INCORRECT_CVC"),
        ("pm_card_visa_chargeDeclinedVelocityLimitExceeded", "4000000000006975", "CARD_VELOCITY_EXCEEDED", "CARD_VELOCITY_EXCEEDED"),
        ("pm_card_radarBlock", "4100000000000019", "FRAUDULENT", "FRAUDULENT"),
        ("pm_card_authenticationRequired", "4000002760003184", "CHALLENGE", "AUTHENTICATION_REQUIRED"),
        ("pm_card_authenticationRequiredOnSetup", "4000002500003155", "CHALLENGE", "AUTHENTICATION_REQUIRED"),
        ("pm_card_authenticationRequiredSetupForOffSession", "4000003800000446", "CHALLENGE", "APPROVE"),
        ("pm_card_threeDSecure2Required", "4000000000003220", "CHALLENGE", "AUTHENTICATION_REQUIRED"),
        ("pm_card_threeDSecureRequired", "4000000000003063", "CHALLENGE", "AUTHENTICATION_REQUIRED"),
        ("pm_card_authenticationRequiredChargeDeclinedInsufficientFunds", "4000008260003178", "CHALLENGE_THEN_INSUFFICIENT_FUNDS", "INSUFFICIENT_FUNDS"),
        ("pm_card_visa_debit", "4000056655665556", "APPROVE", "APPROVE"),
        ("pm_card_unionpay", "6200000000000005", "APPROVE", "APPROVE"),
        ("pm_card_diners", "3056930009020004", "APPROVE", "APPROVE"),
    ])
    func theIssuesCardsMeanWhatStripeSays(_ id: String, _ number: String, _ onSession: String, _ offSession: String) throws {
        let card = try #require(StripeTestCards.card(paymentMethod: id))
        #expect(card.number == number)
        #expect(card.onSession.name == onSession)
        #expect(card.offSession.name == offSession)
    }

    /// The brand the table gives agrees with the number's range wherever PayPanel knows it.
    @Test func brandsAgreeWithTheNumbersRanges() throws {
        let names: [PaymentNetwork: String] = [.visa: "visa", .masterCard: "mastercard", .amex: "amex", .discover: "discover", .jcb: "jcb", .chinaUnionPay: "unionpay"]
        for card in StripeTestCards.all {
            guard let network = try CardNumber(card.number).network, let name = names[network] else { continue }
            #expect(card.brand == name, "\(card.number): table says \(card.brand), its range \(name)")
        }
    }
}
