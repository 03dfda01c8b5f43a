import Foundation
import MockProcessor
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// Idempotency keys on authorize and refund (Stripe semantics): the first result is replayed,
/// declines included, without a second processor call; the same key with other parameters is
/// refused. (A key whose first run crashed is covered by the CLI crash tests, which really kill
/// the process.)
@Suite struct CheckoutIdempotencyTests {
    @Test func aDeclineIsReplayedWithoutASecondAttempt() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let submission = try CheckoutHarness.card(intent.id, "4000000000009995")
        let first = try await harness.service.authorize(submission, idempotencyKey: "order-1-pay")
        harness.advance(by: 60)
        let second = try await harness.service.authorize(submission, idempotencyKey: "order-1-pay")
        #expect(!first.replayed && second.replayed)
        #expect(second.result == first.result && second.firstUsedAt == CheckoutHarness.start)
        guard case .failed(let code, _, .outcome(let storedIntent, _, _)?) = second.result else {
            Issue.record("a decline is stored as a failure")
            return
        }
        #expect(code == "card_declined" && storedIntent.lastError?.declineCode?.rawValue == "insufficient_funds")
        let machine = try harness.machine(intent.id)
        #expect(machine.attempts.count == 1)
        #expect(try harness.processor.calls.count == 1 && harness.ledger().count == 1)
        try harness.check(settled: true)
        // A new key is a new request: another attempt.
        let third = try await harness.service.authorize(try CheckoutHarness.card(intent.id), idempotencyKey: "order-1-pay-2")
        #expect(!third.replayed)
        #expect(try harness.machine(intent.id).attempts.count == 2)
        try harness.check(settled: true)
    }

    @Test func anApprovalIsReplayedAndTheKeyCannotPayWithAnotherCard() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let first = try await harness.service.authorize(try CheckoutHarness.card(intent.id), idempotencyKey: "k-approve")
        let replay = try await harness.service.authorize(try CheckoutHarness.card(intent.id), idempotencyKey: "k-approve")
        #expect(replay.replayed && replay.result == first.result)
        let error = await #expect(throws: IdempotencyError.self) {
            try await harness.service.authorize(try CheckoutHarness.card(intent.id, "5555555555554444"), idempotencyKey: "k-approve")
        }
        #expect(error?.code == "idempotency_key_reused")
        #expect(error?.message.contains("was already used at 2026-11-29T08:00:00Z for a payments.authorize request with different parameters") == true)
        #expect(harness.processor.calls.count == 1)
        try harness.check(settled: true)
    }

    @Test func aKeyExpiresAfter24Hours() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let submission = try CheckoutHarness.card(intent.id, "4000000000000002")
        _ = try await harness.service.authorize(submission, idempotencyKey: "k-day")
        harness.advance(by: 24 * 3600)
        let later = try await harness.service.authorize(submission, idempotencyKey: "k-day")
        #expect(!later.replayed)
        #expect(try harness.machine(intent.id).attempts.count == 2)
        try harness.check(settled: true)
    }

    @Test func anUnknownOutcomeIsReplayedAsUnknownAndTheAttemptIsNeverSentAgain() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let submission = try CheckoutHarness.card(intent.id, holder: "TIMEOUT_THEN_APPROVED")
        let first = try await harness.service.authorize(submission, idempotencyKey: "k-unknown")
        let replay = try await harness.service.authorize(submission, idempotencyKey: "k-unknown")
        #expect(replay.replayed && replay.result == first.result)
        guard case .failed(let code, _, _) = replay.result else {
            Issue.record("an unknown outcome is stored as a failure")
            return
        }
        #expect(code == "outcome_unknown")
        #expect(harness.processor.calls.filter { $0.operation == "authorize" }.count == 1)
        _ = try await harness.service.reconcile()
        #expect(try harness.machine(intent.id).intent.status == .requiresCapture, "the intent, not the key, tells the outcome")
        try harness.check(settled: true)
    }

    @Test func aRefundIsReplayedAndTheKeyCannotRefundAnotherAmount() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent()
        let first = try await harness.service.refund(intent.id, amount: 3000, reason: .requestedByCustomer, idempotencyKey: "refund-1")
        let replay = try await harness.service.refund(intent.id, amount: 3000, reason: .requestedByCustomer, idempotencyKey: "refund-1")
        #expect(replay.replayed && replay.result == first.result)
        let machine = try harness.machine(intent.id)
        #expect(machine.refunds.count == 1 && machine.intent.amountRefunded == 3000)
        let error = await #expect(throws: IdempotencyError.self) {
            try await harness.service.refund(intent.id, amount: 4000, reason: .requestedByCustomer, idempotencyKey: "refund-1")
        }
        #expect(error?.code == "idempotency_key_reused")
        #expect(harness.processor.calls.filter { $0.operation == "refund" }.count == 1)
        try harness.check(settled: true)
    }

    @Test func aRefusedRefundIsNotStoredUnderItsKey() async throws {
        // A rejection before anything ran (more than the remainder) stores nothing: the key
        // may be used again once the request is right.
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent(1000)
        let error = await #expect(throws: PaymentRejection.self) {
            try await harness.service.refund(intent.id, amount: 1001, reason: nil, idempotencyKey: "refund-x")
        }
        #expect(error?.code == "refund_exceeds_captured_amount")
        let again = await #expect(throws: PaymentRejection.self) {
            try await harness.service.refund(intent.id, amount: 1001, reason: nil, idempotencyKey: "refund-x")
        }
        #expect(again?.code == "refund_exceeds_captured_amount", "refused again, not replayed and not 'in progress'")
        let fixed = try await harness.service.refund(intent.id, amount: 1000, reason: nil, idempotencyKey: "refund-x")
        #expect(!fixed.replayed)
        #expect(try harness.machine(intent.id).intent.amountRefunded == 1000)
        try harness.check(settled: true)
    }

    /// A key is the client's to choose: one that holds digits — even a card number — is a key
    /// like any other (it is stored as its digest, `IdempotencyStore.storedKey`).
    @Test(arguments: ["4242424242424242", "3f2a9c1e-8b7d-4e2f-a1b2-123456789012", "1732000000123456780"])
    func keysWithLongDigitRunsWorkLikeAnyOther(key: String) async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let first = try await harness.service.authorize(try CheckoutHarness.card(intent.id), idempotencyKey: key)
        let retry = try await harness.service.authorize(try CheckoutHarness.card(intent.id), idempotencyKey: key)
        #expect(!first.replayed && retry.replayed)
        #expect(retry.intent.id == intent.id && retry.attempt?.id == first.attempt?.id)
        #expect(harness.processor.calls.count == 1, "the retry was replayed, not sent again")
    }
}

/// A keyed run that fails after it started its work — the processor answered, the answer could
/// not be written — keeps its key: the retry resumes what was started (looks it up) and answers
/// from it, never doing it twice. A run that fails before starting anything releases the key.
@Suite struct CheckoutIdempotencyAfterFailureTests {
    @Test func aPartialRefundWhoseAnswerWasNotRecordedIsResumedByTheRetryNotRepeated() async throws {
        let harness = try CheckoutHarness(faults: { FailWriteAtFaultPoint(.afterProcessorCall(.refund), store: $0) })
        let intent = try await harness.capturedIntent(10_000)
        await #expect(throws: InjectedWriteFailure.self) {
            try await harness.service.refund(intent.id, amount: 3000, reason: nil, idempotencyKey: "refund-1")
        }
        #expect(harness.writes.refusedWrites == 1, "the write that records the processor's answer failed")
        let pending = try #require(try harness.machine(intent.id).refunds.first)
        #expect(pending.status == .pending, "the answer was not recorded")
        #expect(try harness.ledgerSummary(pending.id) == ["refund:approved"], "the processor made the refund")

        // At once (no lease to wait for): the retry takes the key over and resumes the refund.
        let retry = try await harness.service.refund(intent.id, amount: 3000, reason: nil, idempotencyKey: "refund-1")
        #expect(!retry.replayed)
        #expect(retry.refund?.id == pending.id && retry.refund?.status == .succeeded)
        #expect(harness.processor.calls.filter { $0.operation == "refund" }.count == 1, "\(harness.processor.calls)")
        #expect(try harness.ledgerSummary(pending.id) == ["refund:approved"])
        let machine = try harness.machine(intent.id)
        #expect(machine.refunds.count == 1 && machine.intent.amountRefunded == 3000)
        let replay = try await harness.service.refund(intent.id, amount: 3000, reason: nil, idempotencyKey: "refund-1")
        #expect(replay.replayed && replay.refund?.id == pending.id && replay.result == retry.result)
        try harness.check(settled: true)
    }

    @Test func anAuthorizationWhoseAnswerWasNotRecordedIsResumedByTheRetryNotRepeated() async throws {
        let harness = try CheckoutHarness(faults: { FailWriteAtFaultPoint(.afterProcessorCall(.authorize), store: $0) })
        let intent = try await harness.createIntent(1000, capture: .automatic)
        let submission = try CheckoutHarness.card(intent.id)
        await #expect(throws: InjectedWriteFailure.self) {
            try await harness.service.authorize(submission, idempotencyKey: "pay-1")
        }
        let attempt = try #require(try harness.machine(intent.id).attempts.first)
        #expect(try harness.machine(intent.id).intent.status == .processing)

        let retry = try await harness.service.authorize(submission, idempotencyKey: "pay-1")
        #expect(!retry.replayed && retry.attempt?.id == attempt.id && retry.intent.status == .succeeded)
        #expect(harness.processor.calls.filter { $0.operation == "authorize" }.count == 1, "\(harness.processor.calls)")
        #expect(try harness.machine(intent.id).attempts.count == 1)
        let replay = try await harness.service.authorize(submission, idempotencyKey: "pay-1")
        #expect(replay.replayed && replay.result == retry.result)
        try harness.check(settled: true)
    }

    @Test func aFailureBeforeAnythingWasStartedReleasesTheKeyAndTheRetryRunsForReal() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let submission = try CheckoutHarness.card(intent.id)
        // The key's claim commits; the write that would open the attempt (and attach it) fails.
        harness.writes.failNextWrites(1, skipping: 1)
        await #expect(throws: InjectedWriteFailure.self) {
            try await harness.service.authorize(submission, idempotencyKey: "pay-early")
        }
        #expect(try harness.machine(intent.id).attempts.isEmpty && harness.processor.calls.isEmpty)
        let retry = try await harness.service.authorize(submission, idempotencyKey: "pay-early")
        #expect(!retry.replayed && retry.intent.status == .requiresCapture)
        #expect(harness.processor.calls.map(\.operation) == ["authorize"])
        try harness.check(settled: true)
    }

    @Test func aKeyedTokenAuthorizeIsReplayedTenMinutesLaterWithoutVerifyingAgain() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent(1000)
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, random: SeededRandomBytes(seed: "replay"), clock: harness.clock)
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2029), amount: intent.amount, eci: "05")
        let sealed = try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate)
        let token = Array(JSONWriter.string(sealed.paymentTokenJSON, style: .compact).utf8)
        let decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())
        let first = try await harness.service.authorize(
            applePayToken: token, intentID: intent.id, decryptor: decryptor, idempotencyKey: "token-pay-1")
        #expect(!first.replayed && first.attempt?.status == .authorized)

        harness.advance(by: 600)
        let replay = try await harness.service.authorize(
            applePayToken: token, intentID: intent.id, decryptor: decryptor, idempotencyKey: "token-pay-1")
        #expect(replay.replayed && replay.result == first.result && replay.firstUsedAt == CheckoutHarness.start)
        // Verifying the token now would fail: only the key's stored answer can have answered.
        let error = await #expect(throws: ApplePayTokenError.self) {
            try await harness.service.authorize(
                applePayToken: token, intentID: intent.id, decryptor: decryptor, idempotencyKey: "token-pay-2")
        }
        #expect(error?.code == "token_signing_time_stale")
        #expect(harness.processor.calls.map(\.operation) == ["authorize"])
        try harness.check(settled: true)
    }
}
