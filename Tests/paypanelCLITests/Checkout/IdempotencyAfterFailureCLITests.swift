import Foundation
import PayPanel
import TestSupport
import Testing

/// `--idempotency-key` when a command fails after it started its work (`$PAYPANEL_STORE_FAULT`:
/// the write that records the processor's answer fails, the process exits 1 as it would on a
/// full disk): the same command retried with the key — at once — resumes what was started and
/// prints its outcome; it never refunds or authorizes a second time. A failure before anything
/// was started releases the key, so the retry runs for real. And a keyed token payment is
/// replayed long after the token's signing window, without verifying the token again.
@Suite struct IdempotencyAfterFailureCLITests {
    @Test func aPartialRefundWhoseAnswerWasNotRecordedIsResumedByTheRetryNotRepeated() throws {
        let cli = try CheckoutCLI()
        let id = try cli.capturedIntent("100.00")
        let refund = ["payments", "refund", id, "--amount", "30.00", "--idempotency-key", "refund-1", "--json"]

        let failed = try cli.run(refund, storeFault: "after-refund")
        #expect(failed.status == 1 && failed.stdout.isEmpty, "\(failed)")
        #expect(failed.stderr.contains("injected by $PAYPANEL_STORE_FAULT"), "\(failed)")
        let pending = try #require(try cli.show(id)["refunds"]?.arrayValue?.first)
        let refundID = try #require(pending["id"]?.stringValue)
        #expect(pending["status"] == "pending", "the answer was not recorded: \(pending)")

        let retried = try cli.run(refund)
        #expect(retried.status == 0, "\(retried)")
        #expect(!retried.stderr.contains("replayed"), "resumed, not replayed: \(retried)")
        let outcome = try cli.json(retried)
        #expect(outcome["refund"]?["id"]?.stringValue == refundID && outcome["refund"]?["status"] == "succeeded", "\(outcome)")
        let replayed = try cli.run(refund)
        #expect(replayed.status == 0 && replayed.stderr.contains("replayed the result of idempotency key \"refund-1\""), "\(replayed)")
        #expect(try cli.json(replayed)["refund"]?["id"]?.stringValue == refundID)

        #expect(try cli.ledger().filter { $0.hasPrefix("refund:") } == ["refund:approved"], "one refund at the processor")
        let shown = try cli.show(id)
        #expect(shown["refunds"]?.arrayValue?.count == 1 && shown["amountRefunded"] == 3000, "\(shown)")
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func anAuthorizationWhoseAnswerWasNotRecordedIsResumedByTheRetryNotRepeated() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent("10.00", capture: "automatic")
        let authorize = ["payments", "authorize", id, "--card", "4242424242424242", "--idempotency-key", "pay-1", "--json"]

        let failed = try cli.run(authorize, storeFault: "after-authorize")
        #expect(failed.status == 1 && failed.stderr.contains("injected by $PAYPANEL_STORE_FAULT"), "\(failed)")
        let attemptID = try #require(try cli.show(id)["attempts"]?.arrayValue?.first?["id"]?.stringValue)

        let retried = try cli.run(authorize)
        #expect(retried.status == 0 && !retried.stderr.contains("replayed"), "\(retried)")
        let outcome = try cli.json(retried)
        #expect(outcome["attempt"]?["id"]?.stringValue == attemptID && outcome["intent"]?["status"] == "succeeded", "\(outcome)")
        #expect(try cli.ledger() == ["authorize:approved", "capture:approved"], "one authorization, captured once")
        #expect(try cli.show(id)["attempts"]?.arrayValue?.count == 1)
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    /// The token was signed at 12:00:00. Tried at 11:50 it is "signed in the future": refused
    /// before any attempt was opened, so the key is released (not stored, not held) and the
    /// same command at 12:01 pays. At 12:11 — past the 5-minute signing window — the same key
    /// replays that payment; a new key shows the token itself no longer verifies.
    @Test func aKeyedTokenPaymentIsReplayedTenMinutesLaterAndARefusedOneReleasesItsKey() throws {
        let cli = try CheckoutCLI()
        let id = try cli.createIntent("10.00", capture: "manual")
        let sealed = try cli.run(["token", "seal", "--amount", "10", "--currency", "USD", "--card", "4242424242424242"])
        #expect(sealed.status == 0, "\(sealed)")
        let token = try cli.directory.write("token.json", sealed.stdout)
        func pay(_ key: String) -> [String] {
            ["payments", "authorize", id, "--token", token, "--test-root", "--idempotency-key", key, "--json"]
        }

        let early = try cli.run(pay("token-pay-1"), now: "2026-11-29T11:50:00Z")
        #expect(early.status == 1 && early.stderr.contains("after the verification time"), "\(early)")
        let first = try cli.run(pay("token-pay-1"), now: "2026-11-29T12:01:00Z")
        #expect(first.status == 0 && !first.stderr.contains("replayed"), "the refused try stored nothing: \(first)")
        #expect(try cli.json(first)["intent"]?["status"] == "requires_capture")

        let later = try cli.run(pay("token-pay-1"), now: "2026-11-29T12:11:00Z")
        #expect(later.status == 0, "\(later)")
        #expect(later.stderr.contains("replayed the result of idempotency key \"token-pay-1\", first used at 2026-11-29T12:01:00Z"), "\(later)")
        #expect(later.stdout == first.stdout)
        let fresh = try cli.run(pay("token-pay-2"), now: "2026-11-29T12:11:00Z")
        #expect(fresh.status == 1 && fresh.stderr.contains("more than 300 s before the verification time"), "\(fresh)")
        #expect(try cli.ledger() == ["authorize:approved"])
    }
}
