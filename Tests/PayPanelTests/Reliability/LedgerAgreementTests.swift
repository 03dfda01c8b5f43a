import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The "exactly once" check: the processor's ledger and the payments database must agree.
@Suite struct LedgerAgreementTests {
    static let usd = PaymentFixture.usd

    static func amount(_ minor: Int64) -> Amount { Amount(minorUnits: minor, currency: usd) }

    /// A refunded intent and the ledger a processor would have for it.
    static func agreeingPair() throws -> (machine: PaymentStateMachine, effects: [ProcessorEffect]) {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try HistoryReplayTests.refundedIntent(repository)
        let machine = try #require(try repository.loadMachine(intent.id))
        let attempt = try #require(machine.attempts.first?.id)
        let effects = [
            ProcessorEffect(processorID: "op_1", reference: attempt, operation: .authorize, refundReference: nil, amount: amount(1000), status: .approved),
            ProcessorEffect(processorID: "op_2", reference: attempt, operation: .capture, refundReference: nil, amount: amount(1000), status: .approved),
            ProcessorEffect(processorID: "op_3", reference: attempt, operation: .refund, refundReference: "re_replay1", amount: amount(400), status: .approved),
        ]
        return (machine, effects)
    }

    @Test func matchingSidesAgree() throws {
        let (machine, effects) = try Self.agreeingPair()
        #expect(LedgerAgreement(machines: [machine], effects: effects).disagreements() == [])
    }

    @Test func anApprovalNoIntentKnowsIsMoneyHeldWithNoIntent() throws {
        let (machine, effects) = try Self.agreeingPair()
        let extra = ProcessorEffect(processorID: "op_4", reference: "att_lost", operation: .authorize, refundReference: nil, amount: Self.amount(1000), status: .approved)
        let found = LedgerAgreement(machines: [machine], effects: effects + [extra]).disagreements()
        #expect(found == ["the processor approved authorization att_lost but no intent records the attempt: money held with no intent"])
    }

    @Test func aSecondCaptureIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let found = LedgerAgreement(machines: [machine], effects: effects + [effects[1]]).disagreements()
        #expect(found.contains { $0.contains("was captured 2 times") }, "\(found)")
    }

    @Test func aRefundTheProcessorNeverMadeIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let found = LedgerAgreement(machines: [machine], effects: Array(effects.prefix(2))).disagreements()
        #expect(found.contains { $0.contains("refund re_replay1") && $0.contains("the processor approved no such refund") }, "\(found)")
    }

    @Test func aRefundTheDatabaseMissedIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let attempt = effects[0].reference
        let extra = ProcessorEffect(processorID: "op_5", reference: attempt, operation: .refund, refundReference: "re_unknown", amount: Self.amount(100), status: .approved)
        let found = LedgerAgreement(machines: [machine], effects: effects + [extra]).disagreements()
        #expect(found.contains { $0.contains("no refund records it") }, "\(found)")
        #expect(found.contains { $0.contains("the processor refunded 500") }, "\(found)")
    }

    @Test func aDeclinedAuthorizationTheDatabaseThinksApprovedIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let declined = [ProcessorEffect(processorID: "op_6", reference: effects[0].reference, operation: .authorize, refundReference: nil, amount: Self.amount(1000), status: .declined)]
        let found = LedgerAgreement(machines: [machine], effects: declined).disagreements()
        #expect(found.contains { $0.contains("but the processor approved no authorization for it") }, "\(found)")
    }

    @Test func theAuditReportsEveryKindOfFinding() throws {
        let repository = try StorageFixtures.memoryRepository()
        _ = try HistoryReplayTests.refundedIntent(repository)
        let clean = try PaymentsAudit.run(repository: repository, effects: nil, expectSettled: true)
        #expect(clean.isClean, "\(clean.findings)")
        #expect(clean.intents == 1 && clean.refunds == 1 && clean.events == 7)
        let lost = ProcessorEffect(processorID: "op_7", reference: "att_lost", operation: .authorize, refundReference: nil, amount: Self.amount(1000), status: .approved)
        let audit = try PaymentsAudit.run(repository: repository, effects: [lost], expectSettled: true)
        #expect(audit.findings.contains { $0.hasPrefix("ledger: ") })
        #expect(audit.json["ledgerDisagreements"]?.arrayValue?.isEmpty == false)
    }
}
