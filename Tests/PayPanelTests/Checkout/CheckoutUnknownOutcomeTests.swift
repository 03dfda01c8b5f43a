import Foundation
import MockProcessor
import PayPanel
import Synchronization
import TestSupport
import Testing

/// Timeouts and 5xx answers: an unknown outcome stays `processing` until a lookup learns it;
/// "not found" fails an authorization only after the grace period; calls the processor did
/// not process (503, 429) are sent again with the same reference.
@Suite struct CheckoutUnknownOutcomeTests {
    /// Authorizes with `holder` and checks the outcome is unknown, after `seconds` of waiting.
    func unknownAuthorization(_ harness: CheckoutHarness, holder: String, waited seconds: TimeInterval) async throws -> (PaymentIntent, String) {
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: holder))
        let attemptID = try #require(outcome.attempt?.id)
        #expect(outcome.intent.status == .processing && outcome.attempt?.status == .authorizing)
        #expect(outcome.intent.inFlight?.outcomeUnknownSince == CheckoutHarness.start.addingTimeInterval(seconds))
        #expect(harness.elapsed == seconds)
        guard case .failed(let code, _, _) = PaymentService.idempotentResult(outcome) else {
            Issue.record("an unknown outcome is reported as a failure to the caller")
            return (intent, attemptID)
        }
        #expect(code == "outcome_unknown")
        try harness.check()
        return (intent, attemptID)
    }

    @Test func aTimeoutThenApprovedIsFoundByReconciliation() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await unknownAuthorization(harness, holder: "TIMEOUT_THEN_APPROVED", waited: 30)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved"], "the processor approved while the caller waited")
        let report = try await harness.service.reconcile()
        #expect(report.lookups.map(\.findingName) == ["approved"])
        #expect(report.lookups.first?.statusBefore == .processing && report.lookups.first?.statusAfter == .requiresCapture)
        #expect(try harness.machine(intent.id).intent.status == .requiresCapture)
        #expect(harness.processor.calls("authorize", attemptID).count == 1, "looked up, never sent again")
        try harness.check(settled: true)
    }

    /// The server's worker passes `reconcileGrace`: a call that began a moment ago is still
    /// its caller's, so the worker leaves it alone. (A worker that looked it up at once raced
    /// the pay request: it found the approval and captured while the request, its answer now
    /// "not in flight", reloaded a half-done intent and told the device the checkout was open.)
    @Test func theWorkerLeavesACallInFlightToItsCaller() async throws {
        let held = HeldAuthorizations()
        let harness = try CheckoutHarness(around: { held.wrapping($0) })
        let intent = try await harness.createIntent(capture: .automatic)
        let paying = Task { try await harness.service.authorize(try CheckoutHarness.card(intent.id)) }
        await held.approvedAtTheProcessor()  // approved there, not yet recorded here
        #expect(harness.service.reconcileGrace == .seconds(35))
        let pass = try await harness.service.reconcile(sparingCallsYoungerThan: harness.service.reconcileGrace)
        #expect(pass.lookups.isEmpty && pass.timers.isEmpty)
        held.release()
        let outcome = try await paying.value
        #expect(outcome.intent.status == .succeeded && outcome.sheetAnswer == nil)
        #expect(harness.processor.calls.filter { $0.operation.hasPrefix("lookup") }.isEmpty)
        try harness.check(settled: true)
    }

    /// A call whose caller is gone (a crashed server) is looked up by its scheduled lookup
    /// once the processor timeout has passed, grace or not. The worker here is a second
    /// server on the same database with a clock of its own, so the held caller (standing for
    /// the dead one) never reaches its own timeout.
    @Test func anotherServersWorkerLooksUpACallWhoseCallerIsGoneAtItsTimeout() async throws {
        let held = HeldAuthorizations()
        let harness = try CheckoutHarness(around: { held.wrapping($0) })
        let intent = try await harness.createIntent(capture: .automatic)
        let paying = Task { try await harness.service.authorize(try CheckoutHarness.card(intent.id)) }
        await held.approvedAtTheProcessor()

        let otherClock = ManualClock(CheckoutHarness.start)
        let other = PaymentService(
            store: try SQLitePaymentStore(path: harness.databasePath, clock: otherClock),
            processor: try MockProcessor(ledgerPath: harness.ledgerPath, clock: otherClock, sleeper: ManualClockSleeper(clock: otherClock)),
            clock: otherClock)
        otherClock.advance(by: 29)
        let early = try await other.reconcile(sparingCallsYoungerThan: other.reconcileGrace)
        #expect(early.lookups.isEmpty && early.timers.isEmpty)
        #expect(try harness.machine(intent.id).intent.status == .processing)
        otherClock.advance(by: 1)
        let due = try await other.reconcile(sparingCallsYoungerThan: other.reconcileGrace)
        #expect(due.timers.map(\.statusAfter) == [.succeeded])
        held.release()  // the late answer is dropped: the call is no longer in flight
        #expect(try await paying.value.intent.status == .succeeded)
        try harness.check(settled: true)
    }

    @Test func aTimeoutThenApprovedWithAutomaticCaptureIsCapturedAfterReconciliation() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent(capture: .automatic)
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: "TIMEOUT_THEN_APPROVED"))
        let attemptID = try #require(outcome.attempt?.id)
        _ = try await harness.service.reconcile()
        #expect(try harness.machine(intent.id).intent.status == .succeeded)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved", "capture:approved"])
        try harness.check(settled: true)
    }

    @Test func aTimeoutThenDeclinedFailsTheAttemptWithTheDeclineCode() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await unknownAuthorization(harness, holder: "TIMEOUT_THEN_DECLINED", waited: 30)
        _ = try await harness.service.reconcile()
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.status == .requiresPaymentMethod && machine.intent.lastError?.declineCode == .genericDecline)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:declined"])
        try harness.check(settled: true)
    }

    @Test(arguments: [("TIMEOUT_THEN_NOT_RECEIVED", 30.0), ("HTTP_500_BEFORE", 0.0)])
    func nothingAtTheProcessorFailsTheAttemptOnlyAfterTheGracePeriod(holder: String, waited: TimeInterval) async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await unknownAuthorization(harness, holder: holder, waited: waited)
        #expect(try harness.ledger(attemptID).isEmpty)
        // Within the grace period "not found" may be a request still in transit.
        harness.advance(by: 4 * 60 + 59)
        let early = try await harness.service.reconcile()
        #expect(early.lookups.map(\.findingName) == ["not_found"] && early.lookups.first?.statusAfter == .processing)
        #expect(try harness.machine(intent.id).intent.inFlight?.reconciliationLookups == 1)
        try harness.check()
        harness.advance(by: 1)
        let late = try await harness.service.reconcile()
        #expect(late.lookups.first?.statusAfter == .requiresPaymentMethod)
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.lastError?.code == .processorHasNoRecord)
        #expect(machine.intent.lastError?.payerMessage == "This payment could not be completed. Try again.")
        #expect(harness.processor.calls("authorize", attemptID).count == 1, "an authorization is never sent twice")
        #expect(try harness.ledger(attemptID).isEmpty)
        try harness.check(settled: true)
    }

    @Test func anHTTP500AfterProcessingIsAnApprovalFoundByLookup() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await unknownAuthorization(harness, holder: "HTTP_500_AFTER", waited: 0)
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved"])
        _ = try await harness.service.reconcile()
        #expect(try harness.machine(intent.id).intent.status == .requiresCapture)
        #expect(harness.processor.calls("authorize", attemptID).count == 1)
        try harness.check(settled: true)
    }

    @Test func theReconciliationTimerLooksUpWithoutAnyoneAsking() async throws {
        let harness = try CheckoutHarness()
        let (intent, attemptID) = try await unknownAuthorization(harness, holder: "HTTP_500_AFTER", waited: 0)
        // `reconcile` looks every unknown call up; the timer alone is due 30 s after the answer.
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: harness.databasePath, set: .main, clock: harness.clock)))
        #expect(try repository.dueTimers(at: harness.clock.now().addingTimeInterval(29)).allSatisfy { $0.kind != .reconciliation })
        let timer = try #require(try repository.dueTimers(at: harness.clock.now().addingTimeInterval(30)).first { $0.kind == .reconciliation })
        #expect(timer.reference == attemptID && timer.intentID == intent.id)
    }

    @Test(arguments: ["HTTP_503|APPROVE", "HTTP_429|HTTP_429|APPROVE"])
    func aCallThatWasNotProcessedIsSentAgainWithTheSameReference(chain: String) async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: chain))
        let attemptID = try #require(outcome.attempt?.id)
        #expect(outcome.intent.status == .requiresCapture)
        let calls = harness.processor.calls("authorize", attemptID)
        let refusals = chain.split(separator: "|").count - 1
        #expect(calls.map(\.answer) == Array(repeating: "not_processed", count: refusals) + ["approved"])
        #expect(harness.processor.calls.allSatisfy { $0.reference == attemptID }, "one reference for every retry")
        #expect(try harness.ledgerSummary(attemptID) == ["authorize:approved"], "recorded once")
        #expect(try harness.machine(intent.id).attempts.count == 1)
        try harness.check(settled: true)
    }

    @Test(arguments: ["HTTP_503", "HTTP_429"])
    func aProcessorThatNeverProcessesFailsTheAttemptAfterTheRetries(holder: String) async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let outcome = try await harness.service.authorize(try CheckoutHarness.card(intent.id, holder: holder))
        let attemptID = try #require(outcome.attempt?.id)
        #expect(outcome.intent.status == .requiresPaymentMethod && outcome.intent.lastError?.code == .processorUnavailable)
        #expect(harness.processor.calls("authorize", attemptID).count == 1 + PaymentPolicy.standard.maximumProcessorRetries)
        #expect(try harness.ledger().isEmpty, "nothing was processed")
        try harness.check(settled: true)
    }

    @Test func aLookupThatGetsNoAnswerIsRepeatedUntilTheLookupsRunOut() async throws {
        // A processor whose lookups are slower than the timeout: the outcome stays unknown,
        // then an operator must decide (requires_merchant_action), never a guess.
        let harness = try CheckoutHarness(policy: PaymentPolicy(maximumReconciliationLookups: 3), processorTimeout: .seconds(30))
        let slowHarness = try SlowLookupHarness(harness)
        let intent = try await harness.createIntent()
        let outcome = try await slowHarness.service.authorize(try CheckoutHarness.card(intent.id, holder: "TIMEOUT_THEN_APPROVED"))
        #expect(outcome.intent.status == .processing)
        for expected in [PaymentStatus.processing, .processing, .requiresMerchantAction] {
            let report = try await slowHarness.service.reconcile()
            #expect(report.lookups.map(\.findingName) == ["unavailable"])
            #expect(report.lookups.first?.statusAfter == expected)
        }
        let machine = try harness.machine(intent.id)
        #expect(machine.intent.lastError?.code == .reconciliationExhausted)
        try harness.check()
    }
}

/// A second service on the harness's files whose processor never answers lookups in time.
struct SlowLookupHarness {
    let service: PaymentService

    init(_ harness: CheckoutHarness) throws {
        service = PaymentService(
            store: try SQLitePaymentStore(path: harness.databasePath, clock: harness.clock), processor: UnavailableLookups(base: harness.processor), clock: harness.clock,
            configuration: PaymentServiceConfiguration(policy: harness.service.configuration.policy), randomSeed: 99)
    }

    /// Everything as `base` does it, but lookups answer "unavailable".
    struct UnavailableLookups: PaymentProcessor {
        let base: any PaymentProcessor
        func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome { await base.authorize(request, timeout: timeout) }
        func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
            await base.completeChallenge(reference: reference, passed: passed, timeout: timeout)
        }
        func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { await base.capture(request, timeout: timeout) }
        func void(reference: String, timeout: Duration) async -> ProcessorOutcome { await base.void(reference: reference, timeout: timeout) }
        func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { await base.refund(request, timeout: timeout) }
        func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
            .unavailable(reason: "no answer within \(timeout)")
        }
    }
}

/// Holds each authorization's answer after the processor gave it, until `release()`: the
/// moment a pay request waits for its answer while the processor has already approved.
final class HeldAuthorizations: Sendable {
    private let approved = AsyncStream<Void>.makeStream()
    private let released = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let isReleased = Mutex(false)

    func wrapping(_ base: any PaymentProcessor) -> any PaymentProcessor { Holder(base: base, owner: self) }

    /// Returns once an authorization was answered by the processor and is being held.
    func approvedAtTheProcessor() async {
        var iterator = approved.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    func release() {
        isReleased.withLock { $0 = true }
        for waiter in released.withLock({ list in defer { list = [] }; return list }) { waiter.resume() }
    }

    fileprivate func hold() async {
        approved.continuation.yield()
        await withCheckedContinuation { continuation in
            let resumeNow = isReleased.withLock { done in
                if !done { released.withLock { $0.append(continuation) } }
                return done
            }
            if resumeNow { continuation.resume() }
        }
    }

    private struct Holder: PaymentProcessor {
        let base: any PaymentProcessor
        let owner: HeldAuthorizations
        func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome {
            let outcome = await base.authorize(request, timeout: timeout)
            await owner.hold()
            return outcome
        }
        func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
            await base.completeChallenge(reference: reference, passed: passed, timeout: timeout)
        }
        func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { await base.capture(request, timeout: timeout) }
        func void(reference: String, timeout: Duration) async -> ProcessorOutcome { await base.void(reference: reference, timeout: timeout) }
        func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { await base.refund(request, timeout: timeout) }
        func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
            await base.lookup(reference: reference, operation: operation, timeout: timeout)
        }
    }
}
