import Foundation
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// The flow with the real backend underneath: tokens sealed, verified and decrypted, intents
/// and attempts stored, against a scripted processor.
@Suite @MainActor struct CheckoutFlowPaymentTests {
    @Test(arguments: [(1, PaymentNetwork.visa, "4242"), (2, .masterCard, "4444"), (3, .amex, "0005")])
    func applePayWithAWalletCardIsCapturedThroughTheVerifiedToken(card: Int, network: PaymentNetwork, last4: String) async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .select("2"), .buyWithApplePay, .chooseCard(card), .confirm])
        #expect(harness.flow.screen == .approved)
        let intent = try #require(harness.flow.intent)
        #expect(intent.status == .succeeded)
        #expect(intent.amountCaptured == 1000)
        let details = try await harness.details(intent.id)
        let attempt = try #require(details.attempts.first)
        #expect(attempt.source == .applePay)
        #expect(attempt.card.network == network && attempt.card.last4 == last4)
        #expect(attempt.sheet?.answer == .success)
        // The processor got the decrypted device account number with a cryptogram.
        let call = try #require(harness.processor.authorizations.first)
        guard case .networkToken(let dpan, _, _, _, _) = call.method else {
            Issue.record("not a network token: \(call.method)")
            return
        }
        #expect(dpan.last4 == last4)
        #expect(harness.notes.contains { if case .tokenSealed = $0 { true } else { false } })
        #expect(await harness.send(.done) == .finished)
        #expect(harness.flow.ending?.reason == .paid)
        #expect(harness.flow.ending?.exitCode == 0)
    }

    @Test func aDeclineShowsThePayerSafeMessageAndTheRetryIsANewAttemptOnTheSameIntent() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(6), .confirm])
        #expect(harness.flow.screen == .sheet)
        let failure = try #require(harness.flow.sheet?.failure)
        #expect(failure.declineCode == "lost_card")
        // A lost card is shown to the payer as a generic decline.
        #expect(failure.payerMessage == "Your card was declined. Try another card.")
        let intentID = try #require(harness.flow.intent?.id)
        #expect(harness.flow.intent?.status == .requiresPaymentMethod)

        await harness.run([.chooseCard(1), .confirm])
        #expect(harness.flow.screen == .approved)
        #expect(harness.flow.intent?.id == intentID)
        let details = try await harness.details(intentID)
        #expect(details.attempts.map(\.status) == [.failed, .captured])
        guard case .authorize(let retry) = harness.requests.last else {
            Issue.record("no retry")
            return
        }
        #expect(retry.intent == .existing(intentID: intentID))
    }

    @Test func payingAnotherAmountAfterADeclineReplacesTheOpenIntent() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(4), .confirm, .back, .select("3"), .buyWithApplePay, .confirm])
        #expect(harness.flow.screen == .approved)
        let created = harness.notes.compactMap { if case .intentCreated(let intent) = $0 { intent } else { nil } }
        let canceled = harness.notes.compactMap { if case .intentCanceled(let intent) = $0 { intent } else { nil } }
        #expect(created.map(\.amount.decimalString) == ["5.00", "20.00"])
        #expect(canceled.map(\.id) == [created[0].id])
        #expect(try await harness.details(created[0].id).intent.status == .canceled)
        #expect(try await harness.details(created[1].id).intent.status == .succeeded)
    }

    @Test func threeDSecurePassedIsCaptured() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(7), .confirm])
        #expect(harness.flow.screen == .challenge)
        #expect(harness.flow.intent?.status == .requiresAction)
        await harness.run([.passChallenge])
        #expect(harness.flow.screen == .approved)
        #expect(harness.flow.intent?.status == .succeeded)
    }

    @Test func threeDSecureFailedReturnsToTheSheetWithTheBanksMessage() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(7), .confirm, .failChallenge])
        #expect(harness.flow.screen == .sheet)
        #expect(harness.flow.intent?.status == .requiresPaymentMethod)
        #expect(harness.flow.sheet?.failure?.failureCode == "payment_intent_authentication_failure")
        #expect(harness.flow.sheet?.failure?.payerMessage == "Your bank could not verify this payment. Try again or use another card.")
    }

    @Test func backOnTheChallengeAbandonsIt() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(7), .confirm, .back])
        #expect(harness.flow.screen == .sheet)
        #expect(harness.flow.sheet?.failure?.failureCode == "authentication_abandoned")
    }

    @Test func quittingDuringTheChallengeCancelsTheIntent() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(7), .confirm])
        #expect(await harness.send(.quit) == .finished)
        #expect(harness.flow.ending?.reason == .quit)
        #expect(harness.flow.ending?.intent?.status == .canceled)
        #expect(harness.flow.ending?.intent?.cancellationReason == .requestedByCustomer)
    }

    @Test func quittingAfterADeclineCancelsTheUnpaidIntent() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .buyWithApplePay, .chooseCard(4), .confirm])
        #expect(await harness.send(.quit) == .finished)
        guard case .cancel(let id) = harness.requests.last else {
            Issue.record("no cancel")
            return
        }
        #expect(try await harness.details(id).intent.status == .canceled)
        #expect(harness.flow.ending?.exitCode == 0)
    }

    @Test func anUnknownOutcomeEndsTheFlowAsAFailureAndLeavesTheIntentProcessing() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .payInApp, .enterCardNumber("4242424242424242"), .enterHolder("TIMEOUT"), .confirm])
        #expect(harness.flow.screen == .unresolved)
        #expect(harness.flow.report?.outcome == .outcomeUnknown)
        #expect(harness.flow.intent?.status == .processing)
        // Quitting cannot cancel a payment in flight: the checkout ends as failed.
        #expect(await harness.send(.quit) == .finished)
        #expect(harness.flow.ending?.reason == .failed)
        #expect(harness.flow.ending?.exitCode == 1)
        #expect(harness.flow.ending?.intent?.status == .processing)
    }

    @Test func payInAppSendsTheTypedCardOnTheSameBackendPath() async throws {
        let harness = try DeviceHarness(captureMethod: .manual)
        await harness.run([.expand, .select("20"), .payInApp, .enterCardNumber("5555 5555 5555 4444"), .enterExpiry("11/30"),
                           .enterHolder("Jane Appleseed"), .confirm])
        #expect(harness.flow.screen == .approved)
        let intent = try #require(harness.flow.intent)
        #expect(intent.status == .requiresCapture)
        let attempt = try #require(try await harness.details(intent.id).attempts.first)
        #expect(attempt.source == .card)
        #expect(attempt.card.description == "masterCard •••• 4444 exp 11/30")
        guard case .card(_, _, let holder) = try #require(harness.processor.authorizations.first).method else {
            Issue.record("not a card")
            return
        }
        #expect(holder == "Jane Appleseed")
        #expect(await harness.send(.quit) == .finished)
        #expect(harness.flow.ending?.reason == .paid)
        #expect(harness.flow.ending?.intent?.status == .requiresCapture)
    }

    @Test func aDeclineInTheAppClearsTheNumberAndKeepsTheForm() async throws {
        let harness = try DeviceHarness()
        await harness.run([.expand, .payInApp, .chooseCard(4), .confirm])
        #expect(harness.flow.screen == .appForm)
        #expect(harness.flow.form?.failure?.declineCode == "insufficient_funds")
        #expect(harness.flow.form?.numberText == "")
        await harness.run([.chooseCard(1), .confirm])
        #expect(harness.flow.screen == .approved)
    }

    @Test func theKeyboardPaysTheDefaultCardWithTwoKeysAfterExpanding() async throws {
        let harness = try DeviceHarness()
        for key: DeviceKey in [.enter, .right, .character("a"), .enter] {
            await harness.press(key)
        }
        #expect(harness.flow.screen == .approved)
        #expect(harness.flow.intent?.amount.decimalString == "10.00")
        #expect(await harness.press(.enter) == .finished)
    }

    @Test func theKeyboardMovesThroughTheSheetAndTypesIntoTheForm() async throws {
        let harness = try DeviceHarness()
        await harness.press(.enter)
        await harness.press(.character("a"))
        await harness.press(.down)  // from Confirm round to the first card
        await harness.press(.down)
        #expect(harness.flow.sheet?.selectedIndex == 1)
        await harness.press(.escape)
        #expect(harness.flow.screen == .panel)
        await harness.press(.tab)
        #expect(harness.flow.panelFocus == .payInApp)
        await harness.press(.enter)
        #expect(harness.flow.screen == .appForm)
        await harness.press(.down)
        for character in "4000000000000002" { await harness.press(.character(character)) }
        await harness.press(.enter)
        for character in "1229" { await harness.press(.character(character)) }
        #expect(harness.flow.form?.expiryText == "12/29")
        await harness.press(.backspace)
        #expect(harness.flow.form?.expiryText == "12/2")
        await harness.press(.character("9"))
        await harness.press(.enter)
        for character in "Zoë" { await harness.press(.character(character)) }
        await harness.press(.enter)
        await harness.press(.enter)
        #expect(harness.flow.screen == .appForm)
        #expect(harness.flow.form?.failure?.declineCode == "generic_decline")
        // Ctrl-C quits from anywhere, here canceling the declined intent.
        #expect(await harness.press(.interrupt) == .finished)
        #expect(harness.flow.ending?.intent?.status == .canceled)
    }
}
