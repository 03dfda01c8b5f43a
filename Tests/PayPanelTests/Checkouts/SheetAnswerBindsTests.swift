import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// What the payer is told is what happens. The processor approves, but its
/// answer is lost (`HTTP_500_AFTER`: approved and recorded at the processor, an unknown outcome
/// for PayPanel, at once — well before the sheet's deadline). The device is answered failure;
/// that answer must be the one the database holds, and the approval found afterwards — through
/// every path that can find it, before and after the deadline — must be reversed, never kept.
@Suite struct SheetAnswerBindsTests {
    /// How a late approval reaches PayPanel.
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        /// The processor's webhook (`payment_intent.amount_capturable_updated`).
        case webhook
        /// The server's worker: due timers and lookups, sparing calls younger than its grace.
        case worker
        /// An operator's `paypanel reconcile`: every call awaiting an answer is looked up.
        case reconcile
        /// A new process on the same database (a restart), whose reconciliation looks it up.
        case lookupAfterRestart = "lookup after restart"

        var testDescription: String { rawValue }
    }

    /// Seconds after the device's answer at which the approval arrives: at once, still
    /// inside the sheet's 25 s, and after the deadline.
    static let moments: [TimeInterval] = [0.1, 10, 40]

    @Test(arguments: Path.allCases, moments)
    func aFailureAnswerBindsAndTheLateApprovalIsReversed(path: Path, after seconds: TimeInterval) async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        let payment = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card(holder: "HTTP_500_AFTER"))
        #expect(harness.base.elapsed < 1, "the unknown answer came back at once")
        #expect(payment.sheet == .failure && payment.status == .open)

        // The answer the device got is already the stored one.
        let intentID = payment.paymentIntentID
        let attempt = try #require(try await harness.base.service.details(intentID)?.attempts.first)
        #expect(attempt.sheet?.answer == .failure, "the device was told failure: the database must say so before anything else happens")
        #expect(try harness.base.ledgerSummary(attempt.id) == ["authorize:approved"], "the processor holds the approval")

        harness.base.advance(by: seconds)
        try await deliver(path, attemptID: attempt.id, harness: harness)

        // The money agrees with the answer: the approval was voided, nothing is held or kept.
        let service = path == .lookupAfterRestart ? try restarted(harness) : harness.base.service
        let details = try #require(try await service.details(intentID))
        #expect(details.intent.status == .requiresPaymentMethod, "\(path) after \(seconds) s: \(details.intent.status)")
        #expect(details.attempts.first?.status == .voided && details.attempts.first?.sheet?.answer == .failure)
        #expect(details.intent.amountCaptured == 0 && details.intent.amountAuthorized == 0)
        #expect(try harness.base.ledgerSummary(attempt.id) == ["authorize:approved", "void:approved"])
        #expect(try await harness.desk.checkout(id)?.status == .open, "a checkout whose payer saw failure is not paid")
        try harness.base.check(settled: true)
    }

    /// The other answer binds too: an approval answers success, recorded, and the checkout
    /// is paid; the automatic capture that follows does not hold the device past the
    /// sheet's budget — a capture whose answer is lost ends the call at the deadline, and
    /// reconciliation settles the capture afterwards.
    @Test func aSuccessAnswerBindsAndTheCaptureNeverHoldsTheDevicePastItsBudget() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        let payment = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card(holder: "CAPTURE_TIMEOUT"))
        #expect(harness.base.elapsed <= 25, "the pay call took \(harness.base.elapsed) s; the sheet gives 25")
        #expect(payment.sheet == .success && payment.status == .paid)
        let details = try #require(try await harness.base.service.details(payment.paymentIntentID))
        #expect(details.attempts.first?.sheet?.answer == .success)
        #expect(details.intent.status == .processing, "the capture's answer was lost: reconciliation settles it")

        harness.base.advance(by: 60)
        _ = try await harness.base.service.reconcile()
        let settled = try #require(try await harness.base.service.details(payment.paymentIntentID))
        #expect(settled.intent.status == .succeeded && settled.intent.amountCaptured == 1000)
        try harness.base.check(settled: true)
    }

    /// A 3-D Secure challenge is not an answer: the sheet keeps waiting through it (the
    /// challenge continues the same sheet, within the same deadline), so a passed challenge
    /// is kept, not reversed.
    @Test func aChallengeIsNotAFailureAnswer() async throws {
        let harness = try CheckoutDeskHarness()
        let id = try await harness.create().checkout.id
        let challenged = try await harness.desk.pay(id, amount: 1000, method: try CheckoutDeskHarness.card(holder: "CHALLENGE"))
        #expect(challenged.error?.code == "authentication_required" && challenged.paymentIntentStatus == .requiresAction)
        let attempt = try #require(try await harness.base.service.details(challenged.paymentIntentID)?.attempts.first)
        #expect(attempt.sheet?.isAwaitingAnswer == true)

        let passed = try await harness.desk.answerChallenge(id, passed: true)
        #expect(passed.sheet == .success && passed.status == .paid)
        let details = try #require(try await harness.base.service.details(challenged.paymentIntentID))
        #expect(details.attempts.first?.sheet?.answer == .success && details.intent.status == .succeeded)
        try harness.base.check(settled: true)
    }

    // MARK: - Paths

    private func deliver(_ path: Path, attemptID: String, harness: CheckoutDeskHarness) async throws {
        switch path {
        case .webhook:
            let body = """
                {"id":"evt_late_1","type":"payment_intent.amount_capturable_updated","data":{"object":{"object":"payment_intent",
                "id":"pi_processor_1","amount":1000,"amount_capturable":1000,"currency":"usd","status":"requires_capture",
                "metadata":{"attempt_id":"\(attemptID)"}}}}
                """
            let result = try await harness.base.service.applyProcessorWebhook(try ProcessorWebhookEvent(body: Array(body.utf8)))
            #expect(result.disposition == .applied, "\(result)")
        case .worker:
            // The worker ticks until nothing is due: the lookup, then the reversal it asks for.
            for _ in 0..<3 {
                harness.base.advance(by: 30)
                _ = try await harness.base.service.reconcile(sparingCallsYoungerThan: harness.base.service.reconcileGrace)
            }
        case .reconcile:
            _ = try await harness.base.service.reconcile()
        case .lookupAfterRestart:
            _ = try await restarted(harness).reconcile()
        }
    }

    /// A second service on the same payments database and processor ledger, as after a restart.
    private func restarted(_ harness: CheckoutDeskHarness) throws -> PaymentService {
        let base = harness.base
        let mock = try MockProcessor(ledgerPath: base.ledgerPath, clock: base.clock, sleeper: ManualClockSleeper(clock: base.clock))
        return PaymentService(
            store: try SQLitePaymentStore(path: base.databasePath, clock: base.clock), processor: mock, clock: base.clock, randomSeed: 2)
    }
}
