import Foundation
import PayPanel
import TestSupport
import Testing

/// `paypanel payments authorize|challenge|capture|void|refund|cancel` and `paypanel reconcile`,
/// run as a user would: exit codes (0, 1 for a decline or a rejection, 64 for usage), messages,
/// `--json` shapes, and both ledgers agreeing afterwards.
@Suite struct CheckoutCommandTests {
    @Test func anApprovalPrintsTheIntentAndTheAttemptAndWhatToDoNext() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent()
        let result = try cli.run(["payments", "authorize", id, "--card", "4242424242424242", "--expiry", "12/30"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.first == "\(id)  requires_capture")
        #expect(result.stdout.contains("  capturable  10.00 USD"))
        #expect(result.stdout.contains("  capture by  2026-12-06T12:00:00Z"))
        #expect(result.stdoutLines.last?.hasSuffix("authorized  visa •••• 4242 exp 12/30") == true)
        #expect(result.stderr == "note: authorized; capture before 2026-12-06T12:00:00Z: paypanel payments capture \(id) [--amount X]\n")
        #expect(!result.stdout.contains("4242424242424242") && !result.stderr.contains("4242424242424242"))
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func theJSONOutcomeHasTheIntentTheAttemptTheRefundAndTheSheetAnswer() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent()
        let result = try cli.run(["payments", "authorize", id, "--card", "4242424242424242", "--json"])
        #expect(result.status == 0, "\(result)")
        let outcome = try cli.json(result)
        #expect(outcome.objectValue?.keys.map { $0 } == ["intent", "attempt", "refund", "sheetAnswer"])
        #expect(outcome["intent"]?["id"]?.stringValue == id && outcome["intent"]?["status"] == "requires_capture")
        #expect(outcome["intent"]?["amountCapturable"] == 1000 && outcome["intent"]?["processing"] == .null)
        let attempt = try #require(outcome["attempt"])
        #expect(attempt["status"] == "authorized" && attempt["network"] == "visa" && attempt["last4"] == "4242")
        #expect(attempt["processorId"] == "auth_000001" && attempt["failure"] == .null)
        #expect(outcome["refund"] == .null && outcome["sheetAnswer"] == .null)
    }

    @Test func aLostCardExitsOneWithTheCodeForTheMerchantAndAGenericMessageForThePayer() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent()
        let text = try cli.run(["payments", "authorize", id, "--card", "4000000000009987"])
        #expect(text.status == 1, "\(text)")
        #expect(text.stderr == "Error: the card was declined (lost_card)\n")
        #expect(text.stdout.contains("  failure     card_declined (lost_card): the card was declined (lost_card)"))
        #expect(text.stdout.contains("  payer sees  Your card was declined. Try another card."))
        let json = try cli.run(["payments", "authorize", id, "--card", "4000000000009979", "--json"])
        #expect(json.status == 1)
        let outcome = try cli.json(json)
        #expect(outcome["intent"]?["status"] == "requires_payment_method")
        #expect(outcome["intent"]?["lastError"]?["code"] == "card_declined")
        #expect(outcome["intent"]?["lastError"]?["declineCode"] == "stolen_card")
        #expect(outcome["intent"]?["lastError"]?["payerMessage"] == "Your card was declined. Try another card.")
        #expect(outcome["attempt"]?["sequence"] == 2, "each card is a new attempt")
        #expect(try cli.ledger() == ["authorize:declined", "authorize:declined"])
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test(arguments: [
        (["payments", "authorize", "ID"], "Missing expected option '--card <pan>'"),
        (["payments", "authorize", "ID", "--card", "4242424242424243"], "the card number ending in 4243 is mistyped"),
        (["payments", "authorize", "ID", "--card", "4242424242424242", "--expiry", "13/30"], "'--expiry'"),
        (["payments", "authorize", "ID", "--card", "4242424242424242", "--idempotency-key", "line\u{1}break"], "contains a control character"),
        (["payments", "challenge", "ID", "maybe"], "the challenge result must be pass, fail or abandon, not 'maybe'"),
        (["payments", "capture", "ID", "--amount", "1e3"], "'--amount'"),
        (["payments", "refund", "ID", "--amount", "10.001"], "'--amount'"),
        (["payments", "refund", "ID", "--reason", "because"], "--reason"),
        (["payments", "capture", "ID", "--processor-timeout", "0"], "'--processor-timeout' takes a number of seconds"),
        (["payments", "capture", "ID", "--reconciliation-grace", "-1"], "'--reconciliation-grace' takes a number of seconds from 0 to 604800, not \"-1\""),
        (["payments", "capture", "ID", "--reconciliation-grace", "4242424242424242"], "'--reconciliation-grace' takes a number of seconds"),
        (["payments", "capture", "ID", "--reconciliation-delays", "30,,60"], "'--reconciliation-delays' takes 1 to 20 comma-separated numbers"),
        (["payments", "capture", "ID", "--reconciliation-delays", "0"], "'--reconciliation-delays' takes 1 to 20 comma-separated numbers"),
        (["payments", "capture", "ID", "--reconciliation-delays", "soon"], "not \"soon\""),
    ])
    func badUsageExits64WithoutTouchingTheProcessor(arguments: [String], message: String) throws {
        let cli = try CheckoutCLI()
        let id = try cli.authorizedIntent()
        let result = try cli.run(arguments.map { $0 == "ID" ? id : $0 })
        #expect(result.status == 64, "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("Error: ") == true && result.stderr.contains(message), "\(result)")
        #expect(result.stderr.contains("Usage: paypanel payments "))
        #expect(!result.stderr.contains("4242424242424242") && !result.stderr.contains("4242424242424243"))
        #expect(try cli.ledger() == ["authorize:approved"])
    }

    @Test func anUnknownFaultPointIsAUsageError() throws {
        let cli = try CheckoutCLI()
        let id = try cli.authorizedIntent()
        let result = try cli.run(["payments", "capture", id], fault: "after-lunch")
        #expect(result.status == 64 && result.signal == nil)
        #expect(result.stderr.hasPrefix("Error: $PAYPANEL_FAULT: unknown fault point 'after-lunch'; use one of before-processor-call, after-processor-call, before-authorize"))
    }

    @Test func anUnknownIntentExitsOne() throws {
        let cli = try CheckoutCLI()
        for arguments in [["payments", "authorize", "pi_missing", "--card", "4242424242424242"], ["payments", "capture", "pi_missing"],
                          ["payments", "void", "pi_missing"], ["payments", "refund", "pi_missing"], ["payments", "challenge", "pi_missing", "pass"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stderr == "Error: no payment intent \"pi_missing\" in paypanel.sqlite: check the id with 'paypanel payments list'\n", "\(arguments)")
        }
    }

    @Test func aChallengeIsAnsweredWithPassFailOrAbandon() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent()
        let challenged = try cli.run(["payments", "authorize", id, "--card", "4000002760003184"])
        #expect(challenged.status == 0, "\(challenged)")
        #expect(challenged.stdoutLines.first == "\(id)  requires_action")
        #expect(challenged.stderr == "note: 3-D Secure: the cardholder must answer the challenge: paypanel payments challenge \(id) pass|fail|abandon\n")
        let failed = try cli.run(["payments", "challenge", id, "fail"])
        #expect(failed.status == 1 && failed.stderr == "Error: the cardholder failed the 3-D Secure challenge\n", "\(failed)")
        #expect(try cli.show(id)["lastError"]?["code"] == "payment_intent_authentication_failure")
        _ = try cli.run(["payments", "authorize", id, "--card", "4000002760003184"])
        let passed = try cli.run(["payments", "challenge", id, "pass", "--json"])
        #expect(passed.status == 0, "\(passed)")
        #expect(try cli.json(passed)["intent"]?["status"] == "requires_capture")
        let again = try cli.run(["payments", "challenge", id, "abandon"])
        #expect(again.status == 1 && again.stderr.contains("is requires_capture: challenge abandoned is not possible in that state"), "\(again)")
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func captureInPartThenRefundsUpToTheCapturedAmount() throws {
        let cli = try CheckoutCLI()
        let id = try cli.authorizedIntent("100.00")
        let tooMuch = try cli.run(["payments", "capture", id, "--amount", "100.01"])
        #expect(tooMuch.status == 1)
        #expect(tooMuch.stderr == "Error: cannot capture 100.01 USD of payment intent \(id): the amount must be above zero and at most the capturable 100.00 USD\n")
        let captured = try cli.run(["payments", "capture", id, "--amount", "60", "--json"])
        #expect(captured.status == 0, "\(captured)")
        #expect(try cli.json(captured)["intent"]?["amountCaptured"] == 6000)
        let first = try cli.run(["payments", "refund", id, "--amount", "25", "--reason", "requested_by_customer"])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdoutLines.last?.contains("25.00 USD  succeeded") == true)
        let over = try cli.run(["payments", "refund", id, "--amount", "35.01"])
        #expect(over.status == 1)
        #expect(over.stderr == "Error: cannot refund 35.01 USD of payment intent \(id): only 35.00 USD of the captured amount is not refunded or being refunded\n")
        let rest = try cli.run(["payments", "refund", id, "--json"])
        #expect(rest.status == 0, "\(rest)")
        let refund = try #require(try cli.json(rest)["refund"])
        #expect(refund["amount"] == 3500 && refund["status"] == "succeeded" && refund["attemptId"] != .null)
        #expect(try cli.json(rest)["intent"]?["amountRefunded"] == 6000)
        #expect(try cli.ledger() == ["authorize:approved", "capture:approved", "refund:approved", "refund:approved"])
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func voidIsOnlyForAnAuthorizedUncapturedIntent() throws {
        let cli = try CheckoutCLI()
        let fresh = try cli.createIntent()
        let early = try cli.run(["payments", "void", fresh])
        #expect(early.status == 1)
        #expect(early.stderr == "Error: intent \(fresh) is requires_payment_method: only an authorized, uncaptured intent (requires_capture) can be voided; use 'payments cancel' before authorization or 'payments refund' after capture\n")
        #expect(try cli.show(fresh)["status"] == "requires_payment_method", "a refused void cancels nothing")
        let captured = try cli.capturedIntent()
        let late = try cli.run(["payments", "void", captured])
        #expect(late.status == 1 && late.stderr.contains("is succeeded: only an authorized, uncaptured intent"))
        let authorized = try cli.authorizedIntent()
        let voided = try cli.run(["payments", "void", authorized, "--json"])
        #expect(voided.status == 0, "\(voided)")
        #expect(try cli.json(voided)["intent"]?["status"] == "canceled")
        #expect(try cli.json(voided)["attempt"]?["status"] == "voided")
        let twice = try cli.run(["payments", "void", authorized])
        #expect(twice.status == 1 && twice.stderr.contains("is canceled: only an authorized"))
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func aVoidTheProcessorRefusesExitsOneAndKeepsTheAuthorization() throws {
        let cli = try CheckoutCLI()
        let id = try cli.authorizedIntent(holder: "VOID_FAIL")
        let result = try cli.run(["payments", "void", id])
        #expect(result.status == 0, "the void ran; its refusal is the intent's last error: \(result)")
        #expect(result.stdoutLines.first == "\(id)  requires_capture")
        #expect(result.stdout.contains("last error  void_failed (void_failed): the processor refused to void the authorization (void_failed)"))
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func aFailedRefundExitsOne() throws {
        let cli = try CheckoutCLI()
        let id = try cli.capturedIntent(holder: "REFUND_FAIL")
        let result = try cli.run(["payments", "refund", id, "--amount", "10"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasSuffix("failed (refund_failed)\n") && result.stderr.hasPrefix("Error: the refund re_"))
        #expect(try cli.show(id)["amountRefunded"] == 0)
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func cancelBeforeAuthorizationAndByVoidAfter() throws {
        let cli = try CheckoutCLI()
        let fresh = try cli.createIntent()
        let canceled = try cli.run(["payments", "cancel", fresh, "--reason", "duplicate", "--json"])
        #expect(canceled.status == 0)
        #expect(try cli.json(canceled)["intent"]?["cancellationReason"] == "duplicate")
        let authorized = try cli.authorizedIntent()
        let voided = try cli.run(["payments", "cancel", authorized])
        #expect(voided.status == 0 && voided.stdout.contains("canceled    requested_by_customer"), "\(voided)")
        #expect(try cli.ledger() == ["authorize:approved", "void:approved"])
    }

    @Test func reconcileReportsWhatItLookedUpAndWhatItFired() throws {
        let cli = try CheckoutCLI()
        let nothing = try cli.run(["reconcile"])
        #expect(nothing.status == 0 && nothing.stdout == "Nothing to reconcile: no unknown outcomes, no timers due.\n")
        let timedOut = try cli.createIntent()
        let unknown = try cli.run(["payments", "authorize", timedOut, "--card", "4242424242424242", "--holder", "TIMEOUT_THEN_APPROVED"])
        #expect(unknown.status == 1, "\(unknown)")
        #expect(unknown.stderr.contains("Error: the processor gave no usable answer to the authorize of att_"))
        #expect(unknown.stdout.contains("  waiting for authorize of att_"))
        #expect(unknown.stdout.contains("outcome unknown since 2026-11-29T12:00:30Z"), "the timeout ran out in virtual time: \(unknown)")
        let attemptID = try #require(try cli.show(timedOut)["attempts"]?.arrayValue?.first?["id"]?.stringValue)
        let abandoned = try cli.createIntent()
        let text = try cli.run(["reconcile"], now: "2026-11-30T12:00:00Z")
        #expect(text.status == 0, "\(text)")
        #expect(text.stdoutLines == [
            "\(timedOut)  authorize \(attemptID): approved  processing → requires_capture",
            "\(abandoned)  timer abandonment: requires_payment_method → canceled",
        ])
        let expired = try cli.run(["reconcile", "--json"], now: "2026-12-06T12:00:30Z")
        let report = try cli.json(expired)
        #expect(report["lookups"] == [] && report["failures"] == [])
        #expect(report["timers"] == [[
            "intentId": .string(timedOut), "timer": "authorization_expiry", "reference": .string(attemptID),
            "statusBefore": "requires_capture", "statusAfter": "expired",
        ]])
        #expect(try cli.ledger(reference: attemptID) == ["authorize:approved", "void:approved"])
        #expect(try cli.disagreements(settled: true, now: "2026-12-06T12:00:30Z").isEmpty)
    }

    @Test func anIdempotentRetryPrintsTheFirstResultAgain() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent()
        let arguments = ["payments", "authorize", id, "--card", "4000000000009995", "--idempotency-key", "checkout-77"]
        let first = try cli.run(arguments)
        let second = try cli.run(arguments, now: "2026-11-29T12:01:00Z")
        #expect(first.status == 1 && second.status == 1)
        #expect(second.stdout == first.stdout)
        #expect(second.stderr == "note: replayed the result of idempotency key \"checkout-77\", first used at 2026-11-29T12:00:00Z\n" + first.stderr)
        let reused = try cli.run(["payments", "authorize", id, "--card", "4242424242424242", "--idempotency-key", "checkout-77"])
        #expect(reused.status == 1 && reused.stderr.contains("idempotency key \"checkout-77\" was already used"))
        #expect(try cli.ledger() == ["authorize:declined"])
    }

    @Test(arguments: ["authorize", "challenge", "capture", "void", "refund", "cancel", "resolve"])
    func everyPaymentCommandHasHelp(command: String) throws {
        let cli = try CheckoutCLI()
        let result = try cli.run(["payments", command, "--help"])
        #expect(result.status == 0 && result.stdout.hasPrefix("OVERVIEW: ") && result.stdout.contains("USAGE: paypanel payments \(command) <id>"))
    }

    @Test func reconcileHasHelp() throws {
        let result = try CheckoutCLI().run(["reconcile", "--help"])
        #expect(result.status == 0 && result.stdout.contains("USAGE: paypanel reconcile"))
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("Exits 1 when an intent could not be reconciled"))
        #expect(text.contains("a capture, void or refund it never received is sent again with the same reference"))
    }
}
