import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// Timers with the test clock: an authorization that lapses before capture expires (with a
/// best-effort void the processor records), an intent nobody pays is canceled.
@Suite struct CheckoutTimerTests {
    @Test func anAuthorizationNotCapturedInTimeExpiresAndIsReleased() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        let attemptID = try #require(outcome.attempt?.id)
        let captureBefore = try #require(outcome.intent.captureBefore)
        harness.clock.set(captureBefore.addingTimeInterval(-1))
        #expect(try await harness.service.reconcile().timers.isEmpty, "not a second early")
        harness.clock.set(captureBefore)
        let report = try await harness.service.reconcile()
        #expect(report.timers.map(\.kind) == [.authorizationExpiry])
        #expect(report.timers.first?.statusBefore == .requiresCapture && report.timers.first?.statusAfter == .expired)
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .expired && machine.attempts.first?.status == .expired)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"], "the best-effort void reached the processor")
        try harness.check(settled: true)
        let capture = await #expect(throws: PaymentRejection.self) { try await harness.service.capture(intent.id) }
        #expect(capture?.reason == .terminal(.expired))
        #expect(try harness.ledger(attemptID).count == 2, "nothing captured after expiry")
    }

    @Test func aCaptureAfterTheDeadlineIsRefusedEvenBeforeTheTimerRuns() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        harness.clock.set(try #require(outcome.intent.captureBefore))
        let error = await #expect(throws: PaymentRejection.self) { try await harness.service.capture(intent.id) }
        #expect(error?.code == "charge_expired_for_capture")
        #expect(harness.processor.calls.allSatisfy { $0.operation != "capture" })
        try harness.check(settled: true)
    }

    @Test func anIntentNobodyPaysIsCanceledAsAbandoned() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        harness.advance(by: 24 * 3600 - 1)
        #expect(try await harness.service.reconcile().timers.isEmpty)
        harness.advance(by: 1)
        let report = try await harness.service.reconcile()
        #expect(report.timers.map(\.kind) == [.abandonment] && report.timers.first?.statusAfter == .canceled)
        #expect(try harness.machine(intent.id).intent.cancellationReason == .abandoned)
        #expect(harness.processor.calls.isEmpty)
        try harness.check(settled: true)
        let late = await #expect(throws: PaymentRejection.self) { try await harness.service.authorize(try CheckoutHarness.card(intent.id)) }
        #expect(late?.reason == .terminal(.canceled))
    }

    @Test func aDeclineRestartsTheAbandonmentClock() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        harness.advance(by: 20 * 3600)
        _ = try await harness.service.authorize(try CheckoutHarness.card(intent.id, "4000000000000002"))
        harness.advance(by: 5 * 3600)
        #expect(try await harness.service.reconcile().timers.isEmpty, "24 h count from the decline, not the creation")
        harness.advance(by: 19 * 3600)
        #expect(try await harness.service.reconcile().timers.map(\.kind) == [.abandonment])
        try harness.check(settled: true)
    }

    @Test func reconcileWithNothingToDoReportsNothing() async throws {
        let harness = try CheckoutHarness()
        _ = try await harness.capturedIntent()
        let report = try await harness.service.reconcile()
        #expect(report.lookups.isEmpty && report.timers.isEmpty && report.failures.isEmpty)
        #expect(JSONWriter.string(report.json) == #"{"lookups":[],"timers":[],"failures":[]}"#)
    }
}
