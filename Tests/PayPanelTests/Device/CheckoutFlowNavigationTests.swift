import Foundation
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// The flow's screens and refusals, without a backend: every step here stays on the device.
@Suite struct CheckoutFlowNavigationTests {
    let now = DeviceHarness.start

    func seedFlow(captureMethod: CaptureMethod = .automatic) throws -> CheckoutFlow {
        try CheckoutFlow(
            payload: PaymentActionPayloadBuilder().build(),
            configuration: CheckoutFlowConfiguration(wallet: .standard(now: now), captureMethod: captureMethod))
    }

    @Test func startsOnTheBannerAndExpandsToThePanel() throws {
        var flow = try seedFlow()
        #expect(flow.screen == .banner)
        #expect(flow.handle(.expand, at: now) == .updated)
        #expect(flow.screen == .panel)
        #expect(flow.panel.selector.selected.decimalString == "5.00")
    }

    @Test(arguments: [("2", "10.00"), ("3", "20.00"), ("20", "20.00"), ("10.00", "10.00"), ("5", "5.00")])
    func selectTakesASegmentOrAnAmount(text: String, selected: String) throws {
        var flow = try seedFlow()
        _ = flow.handle(.expand, at: now)
        #expect(flow.handle(.select(text), at: now) == .updated)
        #expect(flow.panel.selector.selected.decimalString == selected)
    }

    @Test func selectingAnAmountThePanelDoesNotOfferIsRefusedWithTheChoices() throws {
        var flow = try seedFlow()
        _ = flow.handle(.expand, at: now)
        guard case .rejected(let message) = flow.handle(.select("7"), at: now) else {
            Issue.record("accepted")
            return
        }
        #expect(message.contains("5.00, 10.00 or 20.00 USD"))
        #expect(flow.panel.selector.selected.decimalString == "5.00")
    }

    @Test func buyOpensTheSheetWithTheValidatedRequestAndTheWalletCardsOfItsNetworks() throws {
        var flow = try seedFlow()
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.select("20"), at: now)
        #expect(flow.handle(.buyWithApplePay, at: now) == .updated)
        let sheet = try #require(flow.sheet)
        #expect(flow.screen == .sheet)
        #expect(sheet.request.merchantIdentifier == "merchant.com.sample.ApplePayAction")
        #expect(sheet.request.supportedNetworks == PaymentNetwork.seedNetworks)
        #expect(sheet.amount.decimalString == "20.00")
        #expect(sheet.cards.count == 9)
        #expect(!sheet.cards.contains { $0.network == .discover })
        #expect(sheet.selectedCard?.label == "Visa •••• 4242")
        // The seed panel has no merchant name, so the total is labelled with the product: the
        // validator's warning travels with the sheet.
        #expect(sheet.warnings.count == 1)
    }

    @Test func theSheetChoosesCardsByNumberAndRefusesOnesItDoesNotHave() throws {
        var flow = try seedFlow()
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.buyWithApplePay, at: now)
        #expect(flow.handle(.chooseCard(4), at: now) == .updated)
        #expect(flow.sheet?.selectedCard?.behaviour == "declines: insufficient funds")
        #expect(flow.handle(.chooseCard(10), at: now) == .rejected("there is no card 10: choose 1 to 9"))
        #expect(flow.handle(.chooseCard(0), at: now) == .rejected("there is no card 0: choose 1 to 9"))
    }

    @Test func confirmOnTheSheetAsksTheBackendForAnApplePayPaymentOnANewIntent() throws {
        var flow = try seedFlow(captureMethod: .manual)
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.select("2"), at: now)
        _ = flow.handle(.buyWithApplePay, at: now)
        _ = flow.handle(.chooseCard(2), at: now)
        guard case .backend(.authorize(let authorization)) = flow.handle(.confirm, at: now) else {
            Issue.record("no authorization")
            return
        }
        #expect(flow.screen == .authorizing)
        #expect(authorization.amount.decimalString == "10.00")
        #expect(authorization.cardLabel == "Mastercard •••• 4444")
        guard case .create(let request, let replacing) = authorization.intent else {
            Issue.record("not a new intent")
            return
        }
        #expect(request.amount == authorization.amount)
        #expect(request.captureMethod == .manual)
        #expect(replacing == nil)
        // Nothing else is accepted while the backend works.
        #expect(flow.handle(.back, at: now) == .rejected("the payment is being processed: wait for the answer"))
    }

    @Test(arguments: [CheckoutScreen.banner, .panel, .sheet, .appForm])
    func quittingBeforeAnyPaymentEndsWithoutTheBackend(screen: CheckoutScreen) throws {
        var flow = try seedFlow()
        if screen != .banner { _ = flow.handle(.expand, at: now) }
        if screen == .sheet { _ = flow.handle(.buyWithApplePay, at: now) }
        if screen == .appForm { _ = flow.handle(.payInApp, at: now) }
        #expect(flow.screen == screen)
        #expect(flow.handle(.quit, at: now) == .finished)
        #expect(flow.ending?.reason == .quit)
        #expect(flow.ending?.exitCode == 0)
        #expect(flow.ending?.intent == nil)
    }

    @Test func backGoesOneStepUpAndOffTheBanner() throws {
        var flow = try seedFlow()
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.buyWithApplePay, at: now)
        _ = flow.handle(.back, at: now)
        #expect(flow.screen == .panel)
        _ = flow.handle(.payInApp, at: now)
        _ = flow.handle(.back, at: now)
        #expect(flow.screen == .panel)
        _ = flow.handle(.back, at: now)
        #expect(flow.screen == .banner)
        #expect(flow.handle(.back, at: now) == .finished)
    }

    @Test func commandsForAnotherScreenAreRefusedAndTheScreenListsItsOwn() throws {
        var flow = try seedFlow()
        #expect(flow.handle(.confirm, at: now) == .rejected("that does not work on the banner"))
        #expect(flow.screen == .banner)
        #expect(flow.lineCommands.prefix(2) == ["expand", "back"])
        _ = flow.handle(.expand, at: now)
        #expect(flow.lineCommands.contains("buy"))
        #expect(flow.handle(.passChallenge, at: now) == .rejected("that does not work on the panel"))
    }

    @Test func anExpiredOfferCannotBePaid() throws {
        var flow = try CheckoutFlow(
            payload: NotificationFixtures.payload("payment-panel.json"),
            configuration: CheckoutFlowConfiguration(wallet: .standard(now: now)))
        let later = try Timestamp.parse("2027-01-01T00:00:00Z")
        _ = flow.handle(.expand, at: later)
        guard case .rejected(let message) = flow.handle(.buyWithApplePay, at: later) else {
            Issue.record("accepted")
            return
        }
        #expect(message.contains("expired at 2026-12-31T23:59:59Z"))
        #expect(flow.handle(.payInApp, at: later) != .updated)
        #expect(flow.screen == .panel)
    }

    @Test func applePayIsRefusedForAMerchantTheDeviceCannotSealTokensFor() throws {
        var panel = PanelConfig.seed
        panel.merchantIdentifier = "merchant.com.example.other"
        var flow = try CheckoutFlow(
            payload: PaymentActionPayloadBuilder(panel: panel).build(), configuration: CheckoutFlowConfiguration(wallet: .standard(now: now)))
        _ = flow.handle(.expand, at: now)
        guard case .rejected(let message) = flow.handle(.buyWithApplePay, at: now) else {
            Issue.record("accepted")
            return
        }
        #expect(message.contains("use Pay in app"))
        #expect(flow.handle(.payInApp, at: now) == .updated)
    }

    @Test func theAppFormRefusesCardsTheMerchantDoesNotTake() throws {
        var flow = try seedFlow()
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.payInApp, at: now)
        #expect(flow.handle(.enterCardNumber("6011111111111117"), at: now)
            == .rejected("this merchant takes Visa, Mastercard, Amex; the card ending in 1117 is Discover"))
        guard case .rejected(let luhn) = flow.handle(.enterCardNumber("4242424242424241"), at: now) else {
            Issue.record("accepted")
            return
        }
        #expect(luhn.contains("ending in 4241") && !luhn.contains("424242424242"))
        #expect(flow.handle(.confirm, at: now) == .rejected("enter a card number (or AutoFill one from the wallet: card 1)"))
        #expect(flow.handle(.enterExpiry("13/29"), at: now) != .updated)
        #expect(flow.handle(.chooseCard(1), at: now) == .updated)
        #expect(flow.form?.maskedNumber == "Visa •••• 4242")
        #expect(flow.form?.expiryText == "12/29")
    }

    @Test func aPanelUpdateKeepsTheSelectionAndAnOpenSheetKeepsItsRequest() throws {
        var flow = try CheckoutFlow(
            payload: NotificationFixtures.payload("payment-panel.json"),
            configuration: CheckoutFlowConfiguration(wallet: .standard(now: now)))
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.select("10"), at: now)
        _ = flow.handle(.buyWithApplePay, at: now)
        guard case .applied(let update) = flow.applyPanelUpdate(try NotificationFixtures.payload("payment-panel-update.json")) else {
            Issue.record("not applied")
            return
        }
        #expect(update.selectionKept)
        #expect(flow.panel.selector.options.map(\.decimalString) == ["10.00", "20.00", "50.00"])
        #expect(flow.sheet?.amount.decimalString == "10.00")
        guard case .panelUpdated = flow.takeNotes().first else {
            Issue.record("no note")
            return
        }
    }
}
