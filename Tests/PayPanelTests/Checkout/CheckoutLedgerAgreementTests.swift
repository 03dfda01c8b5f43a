import Foundation
import MockProcessor
import PayPanel
import TestSupport
import Testing

/// The ledger comparison the checkout tests rely on must be able to fail: each test here
/// makes the two sides disagree on purpose and expects the disagreement to be named.
@Suite struct CheckoutLedgerAgreementTests {
    func disagreements(_ harness: CheckoutHarness, settled: Bool) throws -> [String] {
        try LedgerAgreement.disagreements(
            databasePath: harness.databasePath, ledgerPath: harness.ledgerPath, now: harness.clock.now(), settled: settled)
    }

    @Test func anApprovalNoAttemptKnowsIsReported() async throws {
        let harness = try CheckoutHarness()
        let request = AuthorizationRequest(
            reference: "att_orphan", amount: Amount(minorUnits: 1000, currency: CheckoutHarness.usd),
            paymentMethod: try CheckoutHarness.card("pi_none").method)
        _ = await harness.mock.authorize(request, timeout: .seconds(30))
        let found = try disagreements(harness, settled: false)
        #expect(found.count == 1 && found.first?.contains("att_orphan belongs to no attempt") == true, "\(found)")
    }

    @Test func anApprovalRecordedAsADeclineIsReported() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let repository = PaymentRepository(database: try Database.openMigrated(path: harness.databasePath, set: .main, clock: harness.clock))
        let card = CardSummary(network: .visa, last4: "4242", expiryMonth: 12, expiryYear: 2030)!
        try repository.apply(
            .attemptOpened(AttemptOpening(attemptID: "att_lost", source: .card, card: card, amount: intent.amount, answersPaymentSheet: false)),
            to: intent.id, expectedVersion: nil, at: harness.clock.now())
        let request = AuthorizationRequest(reference: "att_lost", amount: intent.amount, paymentMethod: try CheckoutHarness.card(intent.id).method)
        _ = await harness.mock.authorize(request, timeout: .seconds(30))
        #expect(try disagreements(harness, settled: false).isEmpty, "an answer not recorded yet is fine mid-flow")
        #expect(try disagreements(harness, settled: true).contains { $0.contains("still processing") })
        try repository.apply(
            .processorAnswered(.authorize(attemptID: "att_lost"), .declined(.genericDecline)), to: intent.id, expectedVersion: nil,
            at: harness.clock.now())
        let found = try disagreements(harness, settled: true)
        #expect(found.contains { $0.contains("failed here but APPROVED at the processor") }, "\(found)")
    }

    @Test func aRefundTheProcessorNeverMadeIsReported() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent(1000)
        let repository = PaymentRepository(database: try Database.openMigrated(path: harness.databasePath, set: .main, clock: harness.clock))
        try repository.apply(.refundRequested(refundID: "re_ghost", amount: 400, reason: nil), to: intent.id, expectedVersion: nil, at: harness.clock.now())
        try repository.apply(
            .processorAnswered(.refund(refundID: "re_ghost"), .approved(ProcessorApproval(amount: Amount(minorUnits: 400, currency: CheckoutHarness.usd), processorID: "ref_x"))),
            to: intent.id, expectedVersion: nil, at: harness.clock.now())
        let found = try disagreements(harness, settled: true)
        #expect(found.contains { $0.contains("re_ghost (succeeded): succeeded here, missing at the processor") }, "\(found)")
        #expect(found.contains { $0.contains("refunded 400 here") }, "\(found)")
    }
}
