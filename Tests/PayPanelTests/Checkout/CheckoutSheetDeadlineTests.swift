import Foundation
import MockProcessor
import PayPanel
import Synchronization
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
        #expect(PaymentService.idempotentResult(outcome) == .succeeded(outcome.storedPayload))
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
        guard case .failed(let code, _, _) = PaymentService.idempotentResult(outcome) else {
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

    /// Found by `paypanel soak chaos --clients 12 --seconds 120 --seed 1`: the sheet was told
    /// failure, the late approval was found while processor serve was down (SIGKILLed,
    /// restarting), and its reversal met "connection refused" four times within 50 ms; the
    /// intent went to requires_merchant_action with the payer's 10.00 USD still authorized. A
    /// reversal the processor did not take is now kept in flight and sent again by
    /// reconciliation, as a refund is: the payer was told it failed, so it must be undone.
    @Test func aReversalTheProcessorCannotTakeIsSentAgainByReconciliationNotGivenUp() async throws {
        let gate = UnreachableVoids()
        let harness = try CheckoutHarness(around: { gate.wrapping($0) })
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.applePay(intent.id, holder: "SLOW_30S"))
        let attemptID = try #require(outcome.attempt?.id)
        #expect(outcome.sheetAnswer == .failure && outcome.intent.status == .processing)

        // The approval is found while the processor refuses every void unprocessed.
        gate.set(down: true)
        let found = try await harness.service.reconcile()
        #expect(found.lookups.map(\.findingName) == ["approved"])
        let waiting = try harness.machine(intent.id)
        #expect(waiting.intent.status == .processing, "not handed to an operator: \(waiting.intent.lastError.map { "\($0.code)" } ?? "")")
        #expect(waiting.intent.inFlight?.voidPurpose == .reversal && waiting.intent.inFlight?.outcomeUnknownSince != nil)
        #expect(waiting.attempts.first?.status == .authorized)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved"])
        try harness.check()

        // The processor is back: the next lookup finds no void and sends it again.
        gate.set(down: false)
        harness.advance(by: 31)
        _ = try await harness.service.reconcile()
        let reversed = try harness.machine(intent.id)
        #expect(reversed.intent.status == .requiresPaymentMethod && reversed.intent.lastError?.code == .sheetDeadlineExceeded)
        #expect(reversed.attempts.first?.status == .voided)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        try harness.check(settled: true)
    }
}

/// A processor whose voids are refused unprocessed (`connection refused`, as from a processor
/// that is restarting) while `down`; everything else goes through.
final class UnreachableVoids: Sendable {
    private let down = Mutex(false)

    func set(down value: Bool) { down.withLock { $0 = value } }
    func wrapping(_ base: any PaymentProcessor) -> any PaymentProcessor { Gate(base: base, owner: self) }
    fileprivate var isDown: Bool { down.withLock { $0 } }

    private struct Gate: PaymentProcessor {
        let base: any PaymentProcessor
        let owner: UnreachableVoids
        func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome { await base.authorize(request, timeout: timeout) }
        func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
            await base.completeChallenge(reference: reference, passed: passed, timeout: timeout)
        }
        func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { await base.capture(request, timeout: timeout) }
        func void(reference: String, timeout: Duration) async -> ProcessorOutcome {
            if owner.isDown { return .notProcessed(reason: "could not connect: connection refused") }
            return await base.void(reference: reference, timeout: timeout)
        }
        func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { await base.refund(request, timeout: timeout) }
        func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
            await base.lookup(reference: reference, operation: operation, timeout: timeout)
        }
    }
}
