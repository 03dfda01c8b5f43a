import Foundation
import MockProcessor
@testable import PayPanel
import TestSupport
import Testing

/// The "exactly once" check: the processor's ledger and the payments database must agree.
/// Each test makes the two sides disagree on purpose and expects the disagreement named, first
/// on ledgers written by hand, then on real flows through the payment service and the mock
/// processor (read through the test convenience, as the checkout tests read them).
@Suite struct LedgerAgreementTests {
    static let usd = PaymentFixture.usd

    static func amount(_ minor: Int64) -> Amount { Amount(minorUnits: minor, currency: usd) }

    static func effect(
        _ processorID: String, _ reference: String, _ operation: ProcessorOperation, _ minor: Int64, _ status: ProcessorEffect.Status = .approved,
        refund: String? = nil, last4: String? = nil, declineCode: DeclineCode? = nil
    ) -> ProcessorEffect {
        ProcessorEffect(
            processorID: processorID, reference: reference, operation: operation, refundReference: refund, amount: amount(minor), status: status,
            declineCode: declineCode, last4: last4)
    }

    /// A refunded intent and the ledger a processor would have for it.
    static func agreeingPair() throws -> (machine: PaymentStateMachine, effects: [ProcessorEffect]) {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try HistoryReplayTests.refundedIntent(repository)
        let machine = try #require(try repository.loadMachine(intent.id))
        let attempt = try #require(machine.attempts.first?.id)
        let effects = [
            effect("auth_1", attempt, .authorize, 1000, last4: "4242"),
            effect("cap_2", attempt, .capture, 1000),
            effect("ref_3", attempt, .refund, 400, refund: "re_replay1"),
        ]
        return (machine, effects)
    }

    static func disagreements(_ machine: PaymentStateMachine, _ effects: [ProcessorEffect], settled: Bool = true) -> [String] {
        LedgerAgreement(machines: [machine], effects: effects, settled: settled).disagreements()
    }

    // MARK: - Ledgers written by hand

    @Test(arguments: [true, false]) func matchingSidesAgree(settled: Bool) throws {
        let (machine, effects) = try Self.agreeingPair()
        #expect(Self.disagreements(machine, effects, settled: settled) == [])
    }

    @Test func anApprovalNoIntentKnowsIsMoneyHeldWithNoIntent() throws {
        let (machine, effects) = try Self.agreeingPair()
        let extra = Self.effect("auth_4", "att_lost", .authorize, 1000, last4: "4242")
        let found = Self.disagreements(machine, effects + [extra])
        #expect(found == ["processor auth_4: authorize approved of 10.00 USD for att_lost belongs to no attempt: money held with no intent"])
    }

    @Test func aSecondCaptureIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let found = Self.disagreements(machine, effects + [effects[1]])
        #expect(found.contains { $0.contains("was captured 2 times at the processor") }, "\(found)")
    }

    @Test func aRefundTheProcessorNeverMadeIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let found = Self.disagreements(machine, Array(effects.prefix(2)))
        #expect(found.contains { $0.hasSuffix("refund re_replay1 (succeeded): succeeded here, missing at the processor") }, "\(found)")
    }

    @Test func aRefundTheDatabaseMissedIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let attempt = effects[0].reference
        let extra = Self.effect("ref_4", attempt, .refund, 100, refund: "re_unknown")
        let found = Self.disagreements(machine, effects + [extra])
        #expect(found.contains { $0.contains("(refund re_unknown) belongs to no refund: money refunded unrecorded") }, "\(found)")
        #expect(found.contains { $0.hasSuffix("refunded 400 here (0 awaiting an operator, 0 pending), 500 at the processor") }, "\(found)")
    }

    @Test func aDeclinedAuthorizationTheDatabaseThinksApprovedIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let declined = [Self.effect("auth_1", effects[0].reference, .authorize, 1000, .declined, last4: "4242", declineCode: .doNotHonor)]
        let found = Self.disagreements(machine, declined)
        #expect(found.contains { $0.contains("(captured): captured here, the processor's authorization is declined") }, "\(found)")
    }

    @Test func anotherCardOrAmountAtTheProcessorIsFound() throws {
        let (machine, effects) = try Self.agreeingPair()
        let other = Self.effect("auth_1", effects[0].reference, .authorize, 900, last4: "1881")
        let found = Self.disagreements(machine, [other] + effects.dropFirst())
        #expect(found.contains { $0.hasSuffix("the processor authorized 9.00 USD, the attempt asked 10.00 USD") }, "\(found)")
        #expect(found.contains { $0.hasSuffix("the processor's card ends 1881, the attempt's 4242") }, "\(found)")
    }

    @Test func aRefundAwaitingAnOperatorMayHaveGoneThroughButNotBePending() throws {
        let (_, effects) = try Self.agreeingPair()
        let repository = try StorageFixtures.memoryRepository()
        let intent = try HistoryReplayTests.refundedIntent(repository)
        let time = StorageFixtures.start.addingTimeInterval(120)
        try repository.apply(.refundRequested(refundID: "re_operator", amount: 300, reason: nil), to: intent.id, expectedVersion: nil, at: time)
        try repository.apply(.processorAnswered(.refund(refundID: "re_operator"), .unknown(reason: "timeout")), to: intent.id, expectedVersion: nil, at: time)
        try repository.apply(.reconciliationExhausted(.refund(refundID: "re_operator")), to: intent.id, expectedVersion: nil, at: time)
        let waiting = try #require(try repository.loadMachine(intent.id))
        #expect(waiting.refunds.last?.status == .requiresMerchantAction)
        let attempt = effects[0].reference
        let wentThrough = Self.effect("ref_4", attempt, .refund, 300, refund: "re_operator")
        #expect(Self.disagreements(waiting, effects) == [], "never reached the processor")
        #expect(Self.disagreements(waiting, effects + [wentThrough]) == [])
        let pending = Self.disagreements(waiting, effects + [Self.effect("ref_4", attempt, .refund, 300, .pending, refund: "re_operator")])
        #expect(
            pending.contains { $0.hasSuffix("re_operator (requires_merchant_action): requires_merchant_action here, pending at the processor") },
            "\(pending)")
        let beyond = Self.disagreements(waiting, effects + [wentThrough, Self.effect("ref_5", attempt, .refund, 300, refund: "re_other")])
        #expect(beyond.contains { $0.hasSuffix("refunded 400 here (300 awaiting an operator, 0 pending), 1000 at the processor") }, "\(beyond)")
    }

    @Test func anApprovalLeftToAnOperatorIsNamedOnceSettled() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 8)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let time = StorageFixtures.start
        try repository.apply(.attemptOpened(PaymentFixture.opening("att_unsure")), to: intent.id, expectedVersion: 1, at: time)
        try repository.apply(.processorAnswered(.authorize(attemptID: "att_unsure"), .unknown(reason: "timeout")), to: intent.id, expectedVersion: nil, at: time)
        try repository.apply(.reconciliationExhausted(.authorize(attemptID: "att_unsure")), to: intent.id, expectedVersion: nil, at: time)
        let machine = try #require(try repository.loadMachine(intent.id))
        #expect(machine.intent.status == .requiresMerchantAction)
        let approved = [Self.effect("auth_1", "att_unsure", .authorize, 1000, last4: "4242")]
        #expect(Self.disagreements(machine, approved, settled: false) == [], "mid-flow, the operator compares the two sides")
        #expect(Self.disagreements(machine, approved) == [
            "\(intent.id) attempt att_unsure (authorizing): APPROVED at the processor but still authorizing here (an approval not recorded)"
        ])
        #expect(Self.disagreements(machine, []) == [], "nothing held: what the operator finds is theirs to decide")
    }

    @Test func theAuditReportsEveryKindOfFinding() throws {
        let repository = try StorageFixtures.memoryRepository()
        _ = try HistoryReplayTests.refundedIntent(repository)
        let clean = try PaymentsAudit.run(ledger: repository, effects: nil, expectSettled: true)
        #expect(clean.isClean, "\(clean.findings)")
        #expect(clean.intents == 1 && clean.refunds == 1 && clean.events == 7)
        let lost = Self.effect("auth_1", "att_lost", .authorize, 1000, last4: "4242")
        let audit = try PaymentsAudit.run(ledger: repository, effects: [lost], expectSettled: true)
        #expect(audit.findings.contains { $0.hasPrefix("ledger: ") })
        #expect(audit.json["ledgerDisagreements"]?.arrayValue?.isEmpty == false)
    }

    // MARK: - The payment service and the mock processor

    func disagreements(_ harness: CheckoutHarness, settled: Bool) throws -> [String] {
        try LedgerAgreement.disagreements(
            databasePath: harness.databasePath, ledgerPath: harness.ledgerPath, now: harness.clock.now(), settled: settled)
    }

    func repository(_ harness: CheckoutHarness) throws -> PaymentLedger {
        PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: harness.databasePath, set: .main, clock: harness.clock)))
    }

    /// An intent with an attempt the processor approved and the database recorded as declined.
    func approvalRecordedAsDecline(_ harness: CheckoutHarness) async throws -> PaymentIntent {
        let intent = try await harness.createIntent()
        let repository = try repository(harness)
        try repository.apply(
            .attemptOpened(AttemptOpening(attemptID: "att_lost", source: .card, card: PaymentFixture.card(), amount: intent.amount, answersPaymentSheet: false)),
            to: intent.id, expectedVersion: nil, at: harness.clock.now())
        let request = AuthorizationRequest(reference: "att_lost", amount: intent.amount, paymentMethod: try CheckoutHarness.card(intent.id).method)
        _ = await harness.mock.authorize(request, timeout: .seconds(30))
        #expect(try disagreements(harness, settled: false).isEmpty, "an answer not recorded yet is fine mid-flow")
        #expect(try disagreements(harness, settled: true).contains { $0.contains("still processing") })
        try repository.apply(
            .processorAnswered(.authorize(attemptID: "att_lost"), .declined(.genericDecline)), to: intent.id, expectedVersion: nil,
            at: harness.clock.now())
        return intent
    }

    @Test func anApprovalNoAttemptKnowsIsReported() async throws {
        let harness = try CheckoutHarness()
        let request = AuthorizationRequest(
            reference: "att_orphan", amount: Amount(minorUnits: 1000, currency: CheckoutHarness.usd),
            paymentMethod: try CheckoutHarness.card("pi_none").method)
        _ = await harness.mock.authorize(request, timeout: .seconds(30))
        let found = try disagreements(harness, settled: false)
        #expect(found.count == 1 && found.first?.contains("att_orphan belongs to no attempt: money held with no intent") == true, "\(found)")
    }

    @Test func anApprovalRecordedAsADeclineIsReported() async throws {
        let harness = try CheckoutHarness()
        _ = try await approvalRecordedAsDecline(harness)
        let found = try disagreements(harness, settled: true)
        #expect(found.contains { $0.contains("failed here but APPROVED at the processor") }, "\(found)")
        #expect(found.contains { $0.contains("declined generic_decline here, approved at the processor") }, "\(found)")
    }

    @Test func aSecondAuthorizationStillHoldingMoneyIsReported() async throws {
        let harness = try CheckoutHarness()
        let intent = try await approvalRecordedAsDecline(harness)
        let second = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        let attemptID = try #require(second.attempt?.id)
        #expect(second.intent.status == .requiresCapture)
        let found = try disagreements(harness, settled: true)
        #expect(found.contains { $0.hasSuffix("holds 2 live authorizations at the processor (att_lost, \(attemptID))") }, "\(found)")
    }

    @Test func aCaptureWhoseAnswerIsNotRecordedIsAcceptedOnlyMidFlow() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let authorized = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        let attemptID = try #require(authorized.attempt?.id)
        try repository(harness).apply(.captureRequested(amount: nil), to: intent.id, expectedVersion: nil, at: harness.clock.now())
        _ = await harness.mock.capture(CaptureRequest(reference: attemptID, amount: intent.amount), timeout: .seconds(30))
        #expect(try disagreements(harness, settled: false) == [])
        let found = try disagreements(harness, settled: true)
        #expect(found.contains { $0.contains("still processing") }, "\(found)")
        #expect(found.contains { $0.hasSuffix("(authorized): captured at the processor but only authorized here") }, "\(found)")
        #expect(found.contains { $0.hasSuffix(": captured 0 here, 1000 at the processor") }, "\(found)")
    }

    @Test func aDeclineCodeOtherThanTheProcessorsIsReported() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let declined = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: "INSUFFICIENT_FUNDS"))
        #expect(declined.attempt?.failure?.declineCode == .insufficientFunds)
        let machines = [try harness.machine(intent.id)]
        let effects = try harness.ledger().map(ProcessorEffect.init)
        #expect(LedgerAgreement(machines: machines, effects: effects, settled: true).disagreements() == [])
        let other = effects.map {
            ProcessorEffect(
                processorID: $0.processorID, reference: $0.reference, operation: $0.operation, refundReference: $0.refundReference,
                amount: $0.amount, status: $0.status, declineCode: .doNotHonor, last4: $0.last4)
        }
        let found = LedgerAgreement(machines: machines, effects: other, settled: true).disagreements()
        #expect(found.contains { $0.hasSuffix("declined insufficient_funds here, do_not_honor at the processor") }, "\(found)")
    }

    @Test func aRefundTheProcessorNeverMadeIsReported() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.capturedIntent(1000)
        let repository = try repository(harness)
        try repository.apply(.refundRequested(refundID: "re_ghost", amount: 400, reason: nil), to: intent.id, expectedVersion: nil, at: harness.clock.now())
        try repository.apply(
            .processorAnswered(.refund(refundID: "re_ghost"), PaymentFixture.approval(Amount(minorUnits: 400, currency: CheckoutHarness.usd))),
            to: intent.id, expectedVersion: nil, at: harness.clock.now())
        let found = try disagreements(harness, settled: true)
        #expect(found.contains { $0.contains("re_ghost (succeeded): succeeded here, missing at the processor") }, "\(found)")
        #expect(found.contains { $0.contains("refunded 400 here") }, "\(found)")
    }
}
