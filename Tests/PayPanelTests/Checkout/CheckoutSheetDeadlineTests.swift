import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// The Apple Pay sheet must be answered within 30 s: the service answers failure at 25 s when
/// the processor has not answered, and reverses an approval that arrives later.
@Suite struct CheckoutSheetDeadlineTests {
    @Test func aSlowApprovalWithinTheDeadlineAnswersTheSheetSuccess() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, holder: "SLOW_5S"))
        #expect(harness.elapsed == 5)
        #expect(outcome.sheetAnswer == .success && outcome.intent.status == .requiresCapture)
        #expect(CheckoutService.idempotentResult(outcome) == .succeeded(outcome.json))
        try harness.check(settled: true)
        // The deadline timer went with the answer: nothing fires at 25 s.
        harness.advance(by: 60)
        let report = try await harness.service.reconcile()
        #expect(report.timers.isEmpty && report.lookups.isEmpty)
    }

    @Test func aSlowApprovalPastTheDeadlineIsAnsweredFailureAt25sThenReversed() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, holder: "SLOW_30S"))
        let attemptID = try #require(outcome.attempt?.id)
        // The call's timeout was cut to the deadline: the sheet got its answer at 25 s.
        #expect(harness.elapsed == 25)
        #expect(outcome.sheetAnswer == .failure && outcome.intent.status == .processing)
        #expect(outcome.attempt?.sheet == .answered(.failure, deadline: CheckoutHarness.start.addingTimeInterval(25)))
        guard case .failed(let code, _, _) = CheckoutService.idempotentResult(outcome) else {
            Issue.record("a sheet answered failure is a failure")
            return
        }
        #expect(code == "sheet_deadline_exceeded")
        // The processor approved all the same (at arrival); it only answered late.
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved"])
        try harness.check()

        let report = try await harness.service.reconcile()
        #expect(report.lookups.map(\.findingName) == ["approved"])
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .requiresPaymentMethod)
        #expect(machine.intent.lastError?.code == .sheetDeadlineExceeded)
        #expect(machine.attempts.first?.status == .voided)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        #expect(harness.processor.calls("void", attemptID).count == 1)
        try harness.check(settled: true)

        // The payer, told it failed, pays again: a new attempt, approved this time.
        let again = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, cryptogram: "AgAAAAAAAIR8CQrXcIhbQAAAAAB="))
        #expect(again.sheetAnswer == .success && again.intent.status == .requiresCapture && again.attempt?.sequence == 2)
        try harness.check(settled: true)
    }

    @Test func aDeclineAnswersTheSheetAtOnce() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, dpan: "4000000000009995"))
        #expect(harness.elapsed == 0 && outcome.sheetAnswer == .failure)
        #expect(outcome.intent.lastError?.declineCode == .insufficientFunds)
        try harness.check(settled: true)
    }

    @Test func aLateApprovalWithAutomaticCaptureIsReversedNotCaptured() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent(capture: .automatic)
        let outcome = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, holder: "TIMEOUT_THEN_APPROVED"))
        let attemptID = try #require(outcome.attempt?.id)
        #expect(harness.elapsed == 25 && outcome.sheetAnswer == .failure)
        _ = try await harness.service.reconcile()
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .requiresPaymentMethod && machine.intent.amountCaptured == 0)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        try harness.check(settled: true)
    }
}
