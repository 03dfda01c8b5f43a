import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// Capture, void and refund through the service: the "later" column of the trigger table,
/// partial capture and refunds, and the remainder rules.
@Suite struct CheckoutSettlementTests {
    /// An authorized (requires_capture) intent of `minorUnits` with the holder trigger.
    func authorized(_ harness: CheckoutHarness, _ minorUnits: Int64 = 10_000, holder: String? = nil) async throws -> (String, String) {
        let intent = try await harness.createIntent(minorUnits)
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: holder))
        #expect(outcome.intent.status == .requiresCapture)
        return (intent.id, try #require(outcome.attempt?.id))
    }

    @Test func aPartialCaptureThenSeveralPartialRefundsNeverPassTheCapturedAmount() async throws {
        let harness = try CheckoutHarness()
        let (intentID, attemptID) = try await authorized(harness)
        let captured = try await harness.service.capture(intentID, amount: 6000)
        #expect(captured.intent.status == .succeeded && captured.intent.amountCaptured == 6000 && captured.intent.amountAuthorized == 10_000)
        try harness.check(settled: true)
        for amount: Int64 in [1000, 2500] {
            let refunded = try await harness.service.refund(intentID, amount: amount)
            #expect(refunded.refund?.status == .succeeded && refunded.refund?.amount.minorUnits == amount)
            try harness.check(settled: true)
        }
        #expect(try harness.machine(intentID).intent.amountRefundable == 2500)
        let tooMuch = await #expect(throws: PaymentRejection.self) { try await harness.service.refund(intentID, amount: 2501) }
        #expect(tooMuch?.code == "refund_exceeds_captured_amount")
        #expect(tooMuch?.message.contains("only 25.00 USD of the captured amount is not refunded") == true)
        let rest = try await harness.service.refund(intentID)
        #expect(rest.refund?.amount.minorUnits == 2500 && rest.intent.amountRefunded == 6000 && rest.intent.amountRefundable == 0)
        let nothingLeft = await #expect(throws: PaymentRejection.self) { try await harness.service.refund(intentID, amount: 1) }
        #expect(nothingLeft?.code == "refund_exceeds_captured_amount")
        #expect(try harness.ledgerSummary(attemptID) == [
            "authorize:approved", "capture:approved", "refund:approved", "refund:approved", "refund:approved",
        ])
        #expect(try harness.ledger(attemptID).filter { $0.operation == .refund }.map(\.amount.minorUnits) == [1000, 2500, 2500])
        #expect(harness.processor.calls.filter { $0.operation == "refund" }.count == 3, "refused refunds never reach the processor")
        try harness.check(settled: true)
    }

    @Test func captureAboveTheAuthorizationIsRefused() async throws {
        let harness = try CheckoutHarness()
        let (intentID, _) = try await authorized(harness)
        let error = await #expect(throws: PaymentRejection.self) { try await harness.service.capture(intentID, amount: 10_001) }
        #expect(error?.code == "amount_too_large")
        #expect(try harness.machine(intentID).intent.status == .requiresCapture)
        try harness.check(settled: true)
    }

    @Test func captureFailLeavesTheAuthorizationToCaptureAgainOrVoid() async throws {
        let harness = try CheckoutHarness()
        let (intentID, attemptID) = try await authorized(harness, holder: "CAPTURE_FAIL")
        let failed = try await harness.service.capture(intentID)
        #expect(failed.intent.status == .requiresCapture)
        #expect(failed.intent.lastError?.code == .captureFailed && failed.intent.lastError?.declineCode == .captureFailed)
        try harness.check(settled: true)
        let voided = try await harness.service.void(intentID)
        #expect(voided.intent.status == .canceled && voided.intent.cancellationReason == .requestedByCustomer)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "capture:declined", "void:approved"])
        try harness.check(settled: true)
    }

    @Test func aCaptureWhoseAnswerIsLostIsFoundByReconciliation() async throws {
        let harness = try CheckoutHarness()
        let (intentID, attemptID) = try await authorized(harness, holder: "CAPTURE_TIMEOUT")
        let pending = try await harness.service.capture(intentID)
        #expect(harness.elapsed == 30 && pending.intent.status == .processing)
        #expect(pending.intent.inFlight?.kind == .capture && pending.intent.inFlight?.outcomeUnknownSince != nil)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "capture:approved"])
        try harness.check()
        let report = try await harness.service.reconcile()
        #expect(report.lookups.map(\.findingName) == ["approved"] && report.lookups.first?.call == .capture(attemptID: attemptID))
        #expect(try harness.machine(intentID).intent.status == .succeeded)
        #expect(harness.processor.calls("capture", attemptID).count == 1)
        try harness.check(settled: true)
    }

    @Test func voidFailKeepsTheAuthorization() async throws {
        let harness = try CheckoutHarness()
        let (intentID, attemptID) = try await authorized(harness, holder: "VOID_FAIL")
        let outcome = try await harness.service.void(intentID)
        #expect(outcome.intent.status == .requiresCapture && outcome.intent.cancellationReason == nil)
        #expect(outcome.intent.lastError?.code == .voidFailed && outcome.intent.lastError?.declineCode == .voidFailed)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:declined"])
        try harness.check(settled: true)
        let captured = try await harness.service.capture(intentID)
        #expect(captured.intent.status == .succeeded)
        try harness.check(settled: true)
    }

    @Test func voidIsOnlyForAnAuthorizedUncapturedIntent() async throws {
        let harness = try CheckoutHarness()
        let fresh = try await harness.createIntent()
        let early = await #expect(throws: PaymentRejection.self) { try await harness.service.void(fresh.id) }
        #expect(early?.reason == .notAllowed(event: "void", status: .requiresPaymentMethod))
        #expect(try harness.machine(fresh.id).intent.status == .requiresPaymentMethod, "void never cancels an unpaid intent")
        let captured = try await harness.capturedIntent()
        let late = await #expect(throws: PaymentRejection.self) { try await harness.service.void(captured.id) }
        #expect(late?.reason == .notAllowed(event: "void", status: .succeeded))
        #expect(harness.processor.calls.allSatisfy { $0.operation != "void" })
        try harness.check(settled: true)
    }

    @Test func cancelBeforeAuthorizationNeedsNoProcessor() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.cancel(intent.id, reason: .duplicate)
        #expect(outcome.intent.status == .canceled && outcome.intent.cancellationReason == .duplicate)
        #expect(harness.processor.calls.isEmpty)
        try harness.check(settled: true)
    }

    @Test func anAsynchronousRefundSucceedsAfterTheSettlementDelay() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent(holder: "REFUND_ASYNC")
        let outcome = try await harness.service.refund(intent.id, amount: 4000)
        let refund = try #require(outcome.refund)
        #expect(refund.status == .pending && refund.processorAccepted)
        #expect(outcome.intent.amountRefundPending == 4000 && outcome.intent.amountRefundable == 6000)
        #expect(PaymentService.idempotentResult(outcome) == .succeeded(outcome.storedPayload), "accepted is not failed")
        try harness.check(settled: true)
        harness.advance(by: 30)
        let early = try await harness.service.reconcile()
        #expect(early.lookups.map(\.findingName) == ["pending"])
        #expect(try harness.machine(intent.id).refunds.first?.status == .pending)
        try harness.check(settled: true)
        harness.advance(by: 30)
        let settled = try await harness.service.reconcile()
        #expect(settled.lookups.map(\.findingName) == ["approved"])
        let machine = try harness.machine(intent.id)
        #expect(machine.refunds.first?.status == .succeeded && machine.intent.amountRefunded == 4000 && machine.intent.amountRefundPending == 0)
        #expect(harness.processor.calls("refund", refund.id).count == 1)
        try harness.check(settled: true)
    }

    @Test func aFailedRefundGivesTheAmountBack() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent(holder: "REFUND_FAIL")
        let outcome = try await harness.service.refund(intent.id, amount: 3000)
        #expect(outcome.refund?.status == .failed && outcome.refund?.failureCode == "refund_failed")
        #expect(outcome.intent.amountRefundable == 10_000 && outcome.intent.amountRefunded == 0)
        guard case .failed(let code, let message, _) = PaymentService.idempotentResult(outcome) else {
            Issue.record("a failed refund is a failure")
            return
        }
        #expect(code == "refund_failed" && message.contains("refund_failed"))
        try harness.check(settled: true)
    }
}
