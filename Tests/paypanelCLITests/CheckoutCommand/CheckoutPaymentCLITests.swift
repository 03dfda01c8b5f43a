import Foundation
import PayPanel
import TestSupport
import Testing

/// `paypanel checkout` in line mode, end to end: the built binary with piped commands and
/// virtual time, checked against the intent in the payments database and the processor's ledger.
@Suite struct CheckoutPaymentCLITests {
    @Test(arguments: [(1, "visa", "4242"), (2, "masterCard", "4444"), (3, "amex", "0005")])
    func applePayApprovesWithEachNetwork(card: Int, network: String, last4: String) throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "select 2", "buy", "card \(card)", "confirm", "done"])
        #expect(result.status == 0, "\(result)")
        #expect(try LineCheckoutHarness.eventNames(result) == [
            "test_mode", "banner", "panel", "panel", "sheet", "sheet", "authorizing", "intent_created", "token_sealed", "approved", "exit",
        ])
        // The demo trusts the test root and says so first.
        #expect(try LineCheckoutHarness.events(result).first?["message"] == "test mode: tokens are signed by PayPanel's test root")
        let id = try #require(try LineCheckoutHarness.createdIntentIDs(result).first)
        let intent = try cli.intent(id)
        #expect(intent["status"]?.stringValue == "succeeded")
        #expect(intent["amountCaptured"]?.int64Value == 1000)
        let attempt = try #require(intent.attempt(0))
        #expect(attempt["source"]?.stringValue == "apple_pay")
        #expect(attempt["network"]?.stringValue == network)
        #expect(attempt["last4"]?.stringValue == last4)
        #expect(attempt["sheet"]?["answer"]?.stringValue == "success")
        let reference = try #require(attempt["id"]?.stringValue)
        #expect(try cli.ledgerSummary(reference: reference) == ["authorize approved", "capture approved"])
        #expect(try cli.ledger(reference: reference).first?["last4"]?.stringValue == last4)
    }

    @Test func aDeclineThenAnotherCardIsASecondAttemptOnTheSameIntent() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "buy", "card 4", "confirm", "card 1", "confirm", "done"])
        #expect(result.status == 0, "\(result)")
        let events = try LineCheckoutHarness.events(result)
        let declined = try #require(events.first { $0["event"]?.stringValue == "declined" })
        #expect(declined["declineCode"]?.stringValue == "insufficient_funds")
        #expect(declined["payerMessage"]?.stringValue == "Your card has insufficient funds. Try another card.")
        let ids = try LineCheckoutHarness.createdIntentIDs(result)
        #expect(ids.count == 1)
        let intent = try cli.intent(ids[0])
        #expect(intent["status"]?.stringValue == "succeeded")
        #expect(intent["attemptCount"]?.int64Value == 2)
        let first = try #require(intent.attempt(0))
        #expect(first["status"]?.stringValue == "failed")
        #expect(first["failure"]?["declineCode"]?.stringValue == "insufficient_funds")
        #expect(intent.attempt(1)?["status"]?.stringValue == "captured")
        #expect(try cli.ledgerSummary(reference: first["id"]?.stringValue ?? "") == ["authorize declined"])
        #expect(try cli.ledgerSummary(reference: intent.attempt(1)?["id"]?.stringValue ?? "") == ["authorize approved", "capture approved"])
    }

    @Test func threeDSecurePassedIsCaptured() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "buy", "card 7", "confirm", "pass", "done"])
        #expect(result.status == 0, "\(result)")
        #expect(try LineCheckoutHarness.eventNames(result).contains("challenge"))
        let intent = try cli.intent(try #require(try LineCheckoutHarness.createdIntentIDs(result).first))
        #expect(intent["status"]?.stringValue == "succeeded")
        let reference = intent.attempt(0)?["id"]?.stringValue ?? ""
        #expect(try cli.ledgerSummary(reference: reference) == ["authorize approved", "capture approved"])
        #expect(try cli.ledger(reference: reference).first?["trigger"]?.stringValue == "CHALLENGE")
    }

    @Test func threeDSecureFailedThenQuitCancelsTheIntent() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "buy", "card 7", "confirm", "fail", "quit"])
        #expect(result.status == 0, "\(result)")
        let events = try LineCheckoutHarness.events(result)
        #expect(events.contains { $0["event"]?.stringValue == "declined" && $0["code"]?.stringValue == "payment_intent_authentication_failure" })
        let intent = try cli.intent(try #require(try LineCheckoutHarness.createdIntentIDs(result).first))
        #expect(intent["status"]?.stringValue == "canceled")
        #expect(intent["cancellationReason"]?.stringValue == "requested_by_customer")
        #expect(intent.attempt(0)?["failure"]?["code"]?.stringValue == "payment_intent_authentication_failure")
        #expect(try cli.ledgerSummary(reference: intent.attempt(0)?["id"]?.stringValue ?? "") == ["authorize challenge_required"])
    }

    @Test(arguments: [(8, "SLOW_30S"), (9, "TIMEOUT_THEN_APPROVED")])
    func theSheetsDeadlineEndsTheCheckoutAndReconcileReversesTheLateApproval(card: Int, trigger: String) throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "buy", "card \(card)", "confirm", "done"])
        #expect(result.status == 1, "\(result)")
        let unknown = try #require(try LineCheckoutHarness.events(result).first { $0["event"]?.stringValue == "outcome_unknown" })
        #expect(unknown["sheetAnswer"]?.stringValue == "failure")
        #expect(unknown["next"]?.stringValue == "paypanel reconcile")
        let id = try #require(unknown["intentId"]?.stringValue)
        var intent = try cli.intent(id)
        #expect(intent["status"]?.stringValue == "processing")
        let reference = try #require(intent.attempt(0)?["id"]?.stringValue)
        // The processor approved it anyway: the payer was told it failed.
        #expect(try cli.ledgerSummary(reference: reference) == ["authorize approved"])
        #expect(try cli.ledger(reference: reference).first?["trigger"]?.stringValue == trigger)

        let reconcile = try cli.paypanel(["reconcile", "--now", "2026-11-29T08:10:00Z"])
        #expect(reconcile.status == 0, "\(reconcile)")
        intent = try cli.intent(id)
        #expect(intent["status"]?.stringValue == "requires_payment_method")
        #expect(intent.attempt(0)?["status"]?.stringValue == "voided")
        #expect(try cli.ledgerSummary(reference: reference) == ["authorize approved", "void approved"])

        // Nobody pays it again: the abandonment timer cancels it a day later.
        _ = try cli.paypanel(["reconcile", "--now", "2026-11-30T08:11:00Z"])
        intent = try cli.intent(id)
        #expect(intent["status"]?.stringValue == "canceled")
        #expect(intent["cancellationReason"]?.stringValue == "abandoned")
    }

    @Test func payInAppSendsTheTypedCardOnTheSameBackendPath() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run([
            "expand", "select 20", "app", "card 5555 5555 5555 4444", "expiry 11/30", "holder Jane Appleseed", "confirm", "done",
        ])
        #expect(result.status == 0, "\(result)")
        let intent = try cli.intent(try #require(try LineCheckoutHarness.createdIntentIDs(result).first))
        #expect(intent["status"]?.stringValue == "succeeded")
        #expect(intent["amount"]?.int64Value == 2000)
        let attempt = try #require(intent.attempt(0))
        #expect(attempt["source"]?.stringValue == "card")
        #expect(attempt["network"]?.stringValue == "masterCard")
        #expect(attempt["expiryMonth"]?.int64Value == 11)
        #expect(attempt["expiryYear"]?.int64Value == 2030)
        #expect(try cli.ledgerSummary(reference: attempt["id"]?.stringValue ?? "") == ["authorize approved", "capture approved"])
    }

    @Test func manualCaptureLeavesTheAuthorizationAndSaysHowToCaptureIt() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "buy", "confirm", "done"], json: false, options: ["--capture", "manual"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("✓ Authorized"))
        let intent = try #require(try cli.intents().first)
        let id = try #require(intent["id"]?.stringValue)
        #expect(intent["status"]?.stringValue == "requires_capture")
        #expect(result.stdout.contains("paypanel payments capture \(id)"))
        let capture = try cli.paypanel(["payments", "capture", id, "--now", LineCheckoutHarness.now])
        #expect(capture.status == 0, "\(capture)")
        #expect(try cli.intent(id)["status"]?.stringValue == "succeeded")
    }

    @Test func typedCardNumbersReachNeitherTheOutputNorTheDatabases() throws {
        let cli = try LineCheckoutHarness()
        let pan = "4000056655665556"
        let result = try cli.run(["expand", "app", "card \(pan)", "confirm", "done"], json: false)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("> card •••• 5556"))
        #expect(!result.stdout.contains(pan) && !result.stderr.contains(pan))
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).filter { $0.contains(".sqlite") }
        #expect(files.contains("paypanel.sqlite") && files.contains("paypanel-processor.sqlite"))
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: cli.directory.file(file)))
            #expect(bytes.range(of: Data(pan.utf8)) == nil, "\(file) holds the card number")
        }
    }
}
