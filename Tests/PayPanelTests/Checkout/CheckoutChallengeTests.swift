import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// 3-D Secure through the service: the challenge rows of the trigger table, passed, failed,
/// abandoned and timed out.
@Suite struct CheckoutChallengeTests {
    /// An intent whose attempt waits for its challenge.
    func challenged(_ harness: CheckoutHarness, card: String = "4000002760003184") async throws -> (PaymentIntent, Attempt) {
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, card))
        #expect(outcome.intent.status == .requiresAction && outcome.requiresChallenge)
        #expect(PaymentService.idempotentResult(outcome) == .succeeded(outcome.storedPayload), "a challenge is not a failure")
        let attempt = try #require(outcome.attempt)
        #expect(attempt.status == .requiresAction)
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:challenge_required"])
        try harness.check()
        return (intent, attempt)
    }

    @Test func aPassedChallengeIsApproved() async throws {
        let harness = try CheckoutHarness()
        let (intent, attempt) = try await challenged(harness)
        let outcome = try await harness.service.completeChallenge(intent.id, result: .passed)
        #expect(outcome.intent.status == .requiresCapture && outcome.attempt?.status == .authorized)
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:approved"], "the same authorization, completed")
        #expect(harness.processor.calls("complete_challenge", attempt.id).count == 1)
        #expect(harness.processor.calls("authorize", attempt.id).count == 1)
        try harness.check(settled: true)
    }

    @Test(arguments: [("4000008260003178", DeclineCode.insufficientFunds), ("4000008400001629", .genericDecline)])
    func aPassedChallengeCanStillBeDeclined(card: String, code: DeclineCode) async throws {
        let harness = try CheckoutHarness()
        let (intent, attempt) = try await challenged(harness, card: card)
        let outcome = try await harness.service.completeChallenge(intent.id, result: .passed)
        #expect(outcome.intent.status == .requiresPaymentMethod && outcome.attempt?.status == .failed)
        #expect(outcome.intent.lastError?.code == .cardDeclined && outcome.intent.lastError?.declineCode == code)
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:declined"])
        try harness.check(settled: true)
    }

    @Test(arguments: [(ChallengeResult.failed, FailureCode.authenticationFailed), (.abandoned, .authenticationAbandoned)])
    func aFailedOrAbandonedChallengeLetsThePayerTryAgain(result: ChallengeResult, code: FailureCode) async throws {
        let harness = try CheckoutHarness()
        let (intent, attempt) = try await challenged(harness)
        let outcome = try await harness.service.completeChallenge(intent.id, result: result)
        #expect(outcome.intent.status == .requiresPaymentMethod && outcome.attempt?.status == .failed)
        #expect(outcome.intent.lastError?.code == code)
        #expect(outcome.intent.lastError?.payerMessage == "Your bank could not verify this payment. Try again or use another card.")
        // The cardholder's failure is recorded here; the processor's authorization still waits
        // for a challenge that will never be completed, and holds no money.
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:challenge_required"])
        #expect(harness.processor.calls("complete_challenge", attempt.id).isEmpty)
        try harness.check(settled: true)
        let retried = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        #expect(retried.intent.status == .requiresCapture && retried.attempt?.id != attempt.id)
        try harness.check(settled: true)
    }

    @Test func aChallengeNobodyAnswersExpiresOnItsTimer() async throws {
        let harness = try CheckoutHarness()
        let (intent, _) = try await challenged(harness)
        harness.advance(by: 9 * 60)
        #expect(try await harness.service.reconcile().timers.isEmpty, "not due before 10 minutes")
        harness.advance(by: 60)
        let report = try await harness.service.reconcile()
        #expect(report.timers.map(\.kind) == [.challengeExpiry])
        #expect(report.timers.first?.statusAfter == .requiresPaymentMethod)
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.lastError?.code == .authenticationTimedOut)
        try harness.check(settled: true)
        let late = await #expect(throws: PaymentRejection.self) {
            try await harness.service.completeChallenge(intent.id, result: .passed)
        }
        #expect(late?.code == "payment_intent_unexpected_state")
    }

    @Test func aChallengeCompletionLostOnTheWayIsSentAgainByReconciliation() async throws {
        let harness = try CheckoutHarness()
        let (intent, attempt) = try await challenged(harness)
        // The completion is committed but the process stops before sending it (a crash): the
        // processor still waits for the challenge. Reconciliation must not take "challenge
        // required" for the answer; it sends the completion again, which needs no card data.
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: harness.databasePath, set: .main, clock: harness.clock)))
        try repository.apply(.challengePassed(attemptID: attempt.id), to: intent.id, expectedVersion: nil, at: harness.clock.now())
        let report = try await harness.service.reconcile()
        #expect(report.lookups.map(\.findingName) == ["challenge_required"])
        #expect(report.lookups.first?.statusAfter == .requiresCapture)
        #expect(harness.processor.calls("complete_challenge", attempt.id).count == 1)
        #expect(try harness.ledgerSummary(attempt.id) == ["authorize:approved"])
        try harness.check(settled: true)
    }
}
