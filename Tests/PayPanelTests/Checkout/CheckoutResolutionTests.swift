import Foundation
import MockProcessor
@testable import PayPanel
import TestSupport
import Testing

/// `PaymentService.resolve` with the mock processor: intents driven into
/// requires_merchant_action the ways it happens (reconciliation exhausted while the processor
/// approved, or never received the authorization; an approval for another amount), then
/// resolved each way. The ledger is looked up first; what it contradicts is refused unless
/// forced, and the record — note, operator, forced, what the processor held — is in the history.
@Suite struct CheckoutResolutionTests {
    /// An intent whose authorization answer was lost (`holder`: TIMEOUT_THEN_APPROVED — the
    /// processor approved —, TIMEOUT_THEN_NOT_RECEIVED — it has no record) and whose lookups got
    /// no answer until they ran out.
    static func intentNeedingAnOperator(
        _ harness: CheckoutHarness, holder: String, capture: CaptureMethod = .manual
    ) async throws -> (intentID: String, attemptID: String) {
        let slow = try SlowLookupHarness(harness)
        let intent = try await harness.createIntent(capture: capture)
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: holder))
        let attemptID = try #require(outcome.attempt?.id)
        #expect(outcome.intent.status == .processing)
        for _ in 0..<PaymentPolicy.standard.maximumReconciliationLookups where try harness.machine(intent.id).intent.status == .processing {
            _ = try await slow.service.reconcile()
        }
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .requiresMerchantAction && machine.intent.lastError?.code == .reconciliationExhausted)
        // Settled, the agreement would name an approval the attempt does not know of: that is
        // what the operator is there to resolve.
        try harness.check(settled: false)
        return (intent.id, attemptID)
    }

    /// The record of the last `operator_resolved` event, as stored.
    static func recordedResolution(_ harness: CheckoutHarness, _ intentID: String) async throws -> JSONValue {
        let details = try #require(try await harness.service.details(intentID))
        let event = try #require(details.events.last { $0.type == "operator_resolved" })
        return try JSONParser().parse(event.data)
    }

    static func replayDiscrepancies(_ harness: CheckoutHarness) throws -> [String] {
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: harness.databasePath, set: .main, clock: harness.clock)))
        return try HistoryReplay(ledger: repository).discrepanciesOfAllIntents().findings
    }

    // MARK: - The processor approved

    @Test func authorizedHoldsTheApprovalTheProcessorHasAndCanBeCaptured() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        let resolved = try await harness.service.resolve(id, as: .authorized, note: "approved in the processor's dashboard", actor: "alice")
        #expect(resolved.status == .requiresCapture && resolved.outcome.intent.amountCapturable == 1000)
        #expect(resolved.outcome.attempt?.status == .authorized && resolved.outcome.attempt?.processorID == "auth_000001")
        let expiresAt = try #require(try harness.ledger(attemptID).first?.expiresAt)
        #expect(resolved.outcome.intent.captureBefore == expiresAt)
        #expect(resolved.processorSays == "the processor holds an authorization of 10.00 USD for \(attemptID) (auth_000001), neither captured nor voided")
        #expect(harness.processor.calls.suffix(3).map(\.operation) == ["lookup_authorize", "lookup_capture", "lookup_void"])
        let recorded = try await Self.recordedResolution(harness, id)
        #expect(recorded["resolution"] == "mark_authorized" && recorded["note"] == "approved in the processor's dashboard")
        #expect(recorded["operator"] == "alice" && recorded["forced"] == false && recorded["processor"]?["holding"] == "authorization")
        try harness.check(settled: true)
        let captured = try await harness.service.capture(id)
        #expect(captured.intent.status == .succeeded && captured.intent.amountCaptured == 1000)
        try harness.check(settled: true)
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    @Test func authorizedOnAutomaticCaptureIsCapturedAtOnce() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED", capture: .automatic)
        let resolved = try await harness.service.resolve(id, as: .authorized, note: "approved there", actor: "alice")
        #expect(resolved.status == .succeeded && resolved.outcome.intent.amountCaptured == 1000)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "capture:approved"])
        try harness.check(settled: true)
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    @Test func canceledVoidsTheAuthorizationTheProcessorHolds() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        let resolved = try await harness.service.resolve(id, as: .canceled, note: "the customer called to cancel", actor: "bob")
        #expect(resolved.status == .canceled && resolved.outcome.intent.cancellationReason == .operator)
        #expect(resolved.outcome.attempt?.status == .voided)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        try harness.check(settled: true)
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    @Test func aVoidTheProcessorRefusesLeavesTheAuthorizationToCaptureOrCancel() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        let refusing = PaymentService(
            store: try SQLitePaymentStore(path: harness.databasePath, clock: harness.clock), processor: RefusedVoids(base: harness.processor), clock: harness.clock,
            configuration: harness.service.configuration, randomSeed: 5)
        let resolved = try await refusing.resolve(id, as: .canceled, note: "cancel it", actor: "bob")
        #expect(resolved.status == .requiresCapture && resolved.outcome.intent.amountCapturable == 1000)
        #expect(resolved.outcome.intent.lastError?.code == .voidFailed && resolved.outcome.intent.cancellationReason == nil)
        try harness.check(settled: true)
        let canceled = try await harness.service.cancel(id)
        #expect(canceled.intent.status == .canceled)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        try harness.check(settled: true)
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    /// Everything as `base` does it, but every void is refused (and never reaches the ledger).
    struct RefusedVoids: PaymentProcessor {
        let base: any PaymentProcessor
        func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome { await base.authorize(request, timeout: timeout) }
        func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
            await base.completeChallenge(reference: reference, passed: passed, timeout: timeout)
        }
        func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { await base.capture(request, timeout: timeout) }
        func void(reference: String, timeout: Duration) async -> ProcessorOutcome { .declined(.voidFailed) }
        func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { await base.refund(request, timeout: timeout) }
        func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
            await base.lookup(reference: reference, operation: operation, timeout: timeout)
        }
    }

    @Test func succeededIsRefusedWhileTheProcessorHasOnlyAnAuthorization() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        let before = try harness.machine(id)
        await #expect {
            try await harness.service.resolve(id, as: .succeeded, note: "the customer says they paid", actor: "alice")
        } throws: { error in
            guard let rejection = error as? PaymentRejection else { return false }
            #expect(rejection.code == "resolution_contradicts_processor")
            #expect(rejection.message == "cannot resolve payment intent \(id) as succeeded: the processor holds an authorization of 10.00 USD for \(attemptID) (auth_000001), neither captured nor voided; resolve it as authorized or canceled instead, or force the resolution to override the processor's ledger")
            return true
        }
        #expect(try harness.machine(id) == before, "nothing changed")
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved"], "nothing was sent")
        try harness.check(settled: false)
    }

    @Test func aForcedSucceededIsAppliedAndRecordedAndTheLedgerAgreementNamesIt() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        let resolved = try await harness.service.resolve(id, as: .succeeded, note: "captured by phone with the acquirer", actor: "alice", force: true)
        #expect(resolved.status == .succeeded && resolved.outcome.intent.amountCaptured == 1000)
        #expect(resolved.record.forced && resolved.record.processor?.name == "authorization")
        let recorded = try await Self.recordedResolution(harness, id)
        #expect(recorded["forced"] == true && recorded["processor"]?["holding"] == "authorization" && recorded["processor"]?["amount"] == 1000)
        let machines = [try harness.machine(id)]
        let disagreements = LedgerAgreement.disagreements(payments: machines, ledger: try harness.ledger(), settled: true)
        #expect(disagreements.contains { $0.contains("captured 1000 here, nothing at the processor") && $0.contains(attemptID) }, "\(disagreements)")
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    @Test func retryIsRefusedWhileTheProcessorHoldsTheMoney() async throws {
        let harness = try CheckoutHarness()
        let (id, _) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        await #expect {
            try await harness.service.resolve(id, as: .retry, note: "let them try again", actor: "alice")
        } throws: { error in
            (error as? PaymentRejection)?.message.contains("resolve it as authorized or canceled instead") == true
        }
        #expect(try harness.machine(id).intent.status == .requiresMerchantAction)
    }

    // MARK: - The processor never received it

    @Test func retryEndsTheAttemptAndThePayerPaysAgain() async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        let resolved = try await harness.service.resolve(id, as: .retry, note: "no trace at the processor", actor: "alice")
        #expect(resolved.status == .requiresPaymentMethod)
        #expect(resolved.outcome.intent.lastError?.code == .resolvedByOperator)
        #expect(resolved.outcome.attempt?.status == .failed)
        #expect(resolved.processorSays == "the processor holds nothing for \(attemptID): it has no record of the authorization")
        #expect(harness.processor.calls.last.map { "\($0)" } == "lookup_authorize \(attemptID) → not_found", "no capture or void lookups for nothing")
        try harness.check(settled: true)
        let again = try await harness.service.authorize(try CheckoutHarness.card(id))
        #expect(again.intent.status == .requiresCapture && again.attempt?.sequence == 2)
        try harness.check(settled: true)
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    @Test func canceledWithNothingHeldSendsNoVoid() async throws {
        let harness = try CheckoutHarness()
        let (id, _) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        let resolved = try await harness.service.resolve(id, as: .canceled, note: "order withdrawn", actor: "alice")
        #expect(resolved.status == .canceled && resolved.outcome.intent.cancellationReason == .operator)
        #expect(!harness.processor.calls.contains { $0.operation == "void" })
        try harness.check(settled: true)
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    @Test(arguments: [IntentResolution.authorized, .succeeded])
    func whatTheProcessorNeverAuthorizedIsRefusedUnlessForced(resolution: IntentResolution) async throws {
        let harness = try CheckoutHarness()
        let (id, attemptID) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        await #expect {
            try await harness.service.resolve(id, as: resolution, note: "I think it went through", actor: "alice")
        } throws: { error in
            (error as? PaymentRejection)?.message
                == "cannot resolve payment intent \(id) as \(resolution.rawValue): the processor holds nothing for \(attemptID): it has no record of the authorization; resolve it as canceled or retry instead, or force the resolution to override the processor's ledger"
        }
        let forced = try await harness.service.resolve(id, as: resolution, note: "the acquirer confirmed it by phone", actor: "alice", force: true)
        #expect(forced.status == (resolution == .authorized ? .requiresCapture : .succeeded))
        #expect(forced.record.forced && forced.record.processor == .nothingHeld("it has no record of the authorization"))
        #expect(try Self.replayDiscrepancies(harness) == [])
    }

    // MARK: - The processor cannot be asked, and other refusals

    @Test func nothingIsResolvedWhileTheProcessorCannotBeAskedUnlessForced() async throws {
        let harness = try CheckoutHarness()
        let (id, _) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        let slow = try SlowLookupHarness(harness)
        await #expect {
            try await slow.service.resolve(id, as: .canceled, note: "cancel", actor: "alice")
        } throws: { error in
            let message = (error as? PaymentRejection)?.message ?? ""
            return message.contains("the processor could not say what it holds") && message.contains("ask again once the processor answers")
        }
        let forced = try await slow.service.resolve(id, as: .canceled, note: "the processor is down; canceling", actor: "alice", force: true)
        #expect(forced.status == .canceled && forced.record.processor?.name == "unknown")
    }

    @Test func anIntentOutsideRequiresMerchantActionIsRefusedWithoutAskingTheProcessor() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        _ = try await harness.service.authorize(try CheckoutHarness.card(intent.id))
        let calls = harness.processor.calls.count
        await #expect {
            try await harness.service.resolve(intent.id, as: .succeeded, note: "done", actor: "alice", force: true)
        } throws: { error in
            (error as? PaymentRejection)?.message == "payment intent \(intent.id) is requires_capture: operator resolved is not possible in that state"
        }
        let canceled = try await harness.createIntent()
        _ = try await harness.service.cancel(canceled.id)
        await #expect {
            try await harness.service.resolve(canceled.id, as: .retry, note: "again", actor: "alice")
        } throws: { error in (error as? PaymentRejection)?.code == "payment_intent_unexpected_state" }
        #expect(harness.processor.calls.count == calls)
    }

    @Test func aBadNoteIsRefusedBeforeAnythingIsAsked() async throws {
        let harness = try CheckoutHarness()
        let (id, _) = try await Self.intentNeedingAnOperator(harness, holder: "TIMEOUT_THEN_APPROVED")
        let calls = harness.processor.calls.count
        await #expect(throws: PaymentInputError.self) {
            try await harness.service.resolve(id, as: .canceled, note: " ", actor: "alice")
        }
        #expect(harness.processor.calls.count == calls)
    }

    // MARK: - An approval for another amount

    @Test func anApprovalForAnotherAmountIsResolvedWithWhatTheProcessorHolds() async throws {
        let harness = try CheckoutHarness()
        let short = try ShortApprovalHarness(harness)
        let intent = try await harness.createIntent()
        let outcome = try await short.service.authorize(try CheckoutHarness.card(intent.id))
        #expect(outcome.intent.status == .requiresMerchantAction && outcome.intent.lastError?.code == .amountMismatch)
        let resolved = try await short.service.resolve(intent.id, as: .authorized, note: "partial approval accepted", actor: "alice")
        #expect(resolved.status == .requiresCapture && resolved.outcome.intent.amountCapturable == 900)
        let captured = try await short.service.capture(intent.id)
        #expect(captured.intent.status == .succeeded && captured.intent.amountCaptured == 900)
    }

    @Test func anApprovalForAnotherAmountCanBeCanceledByAVoid() async throws {
        let harness = try CheckoutHarness()
        let short = try ShortApprovalHarness(harness)
        let intent = try await harness.createIntent()
        let outcome = try await short.service.authorize(try CheckoutHarness.card(intent.id))
        let attemptID = try #require(outcome.attempt?.id)
        let resolved = try await short.service.resolve(intent.id, as: .canceled, note: "wrong amount: released", actor: "alice")
        #expect(resolved.status == .canceled)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "void:approved"])
        #expect(try Self.replayDiscrepancies(harness) == [])
    }
}

/// A second service on the harness's files whose processor approves authorizations for 1.00
/// less than asked (a partial approval), in its answers and its lookups.
struct ShortApprovalHarness {
    let service: PaymentService

    init(_ harness: CheckoutHarness) throws {
        service = PaymentService(
            store: try SQLitePaymentStore(path: harness.databasePath, clock: harness.clock), processor: ShortApprovals(base: harness.processor), clock: harness.clock,
            configuration: harness.service.configuration, randomSeed: 77)
    }

    struct ShortApprovals: PaymentProcessor {
        let base: any PaymentProcessor

        static func short(_ outcome: ProcessorOutcome) -> ProcessorOutcome {
            guard case .approved(let approval) = outcome else { return outcome }
            let amount = Amount(minorUnits: approval.amount.minorUnits - 100, currency: approval.amount.currency)
            return .approved(ProcessorApproval(amount: amount, processorID: approval.processorID, expiresAt: approval.expiresAt))
        }

        func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome {
            Self.short(await base.authorize(request, timeout: timeout))
        }
        func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
            Self.short(await base.completeChallenge(reference: reference, passed: passed, timeout: timeout))
        }
        func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { await base.capture(request, timeout: timeout) }
        func void(reference: String, timeout: Duration) async -> ProcessorOutcome { await base.void(reference: reference, timeout: timeout) }
        func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { await base.refund(request, timeout: timeout) }
        func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
            let result = await base.lookup(reference: reference, operation: operation, timeout: timeout)
            guard operation == .authorize, case .found(let outcome) = result else { return result }
            return .found(Self.short(outcome))
        }
    }
}
