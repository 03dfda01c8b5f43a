import Foundation
import MockProcessor
import PayPanel
import Synchronization
import TestSupport
import Testing

/// One test's checkout: its own payments database and processor ledger in a temporary
/// directory, one `ManualClock` shared by the service and the mock processor, whose waits
/// (timeouts, SLOW_<n>S) move that clock — virtual time. Every processor call goes through a
/// `RecordingProcessor`, so tests can check what was sent, not only what was recorded.
///
/// `check()` asserts, after a step, the DESIGN §4 invariants of every intent (alone, and
/// against the previous check: terminal states stay, money only moves forward) and that the
/// payments database and the processor's ledger agree.
final class CheckoutHarness: @unchecked Sendable {
    // Immutable after init, apart from `lastSeen` (behind a Mutex); the service and the
    // processors are actors, the clock is thread-safe.
    static let start = Date(timeIntervalSince1970: 1_795_939_200)  // 2026-11-29T08:00:00Z
    static let usd = try! Currency(code: "USD")  // a constant of the ISO table, not input

    let directory: TemporaryDirectory
    let clock: ManualClock
    let mock: MockProcessor
    let processor: RecordingProcessor
    let service: PaymentService
    /// The service's store, which refuses the writes a test arms (`failNextWrites`).
    let writes: WriteFailingStore
    private let lastSeen = Mutex<[String: PaymentStateMachine]>([:])

    /// `around` puts a processor of the test's own between the recorder and the mock; `faults`
    /// makes the service's fault injector (given the service's store, to arm it).
    init(
        policy: PaymentPolicy = .standard, processorTimeout: Duration = .seconds(30), seed: UInt64 = 1,
        around: ((MockProcessor) -> any PaymentProcessor)? = nil, faults: ((WriteFailingStore) -> any FaultInjector)? = nil
    ) throws {
        directory = try TemporaryDirectory("paypanel-checkout-test")
        clock = ManualClock(Self.start)
        mock = try MockProcessor(ledgerPath: directory.file("processor.sqlite"), clock: clock, sleeper: ManualClockSleeper(clock: clock))
        processor = RecordingProcessor(around?(mock) ?? mock)
        writes = WriteFailingStore(try SQLitePaymentStore(path: directory.file("payments.sqlite"), clock: clock))
        service = PaymentService(
            store: writes, processor: processor, clock: clock,
            configuration: PaymentServiceConfiguration(policy: policy, processorTimeout: processorTimeout),
            faults: faults?(writes) ?? NoFaults(), randomSeed: seed)
    }

    var databasePath: String { directory.file("payments.sqlite") }
    var ledgerPath: String { directory.file("processor.sqlite") }

    /// Seconds of virtual time since the start.
    var elapsed: TimeInterval { clock.now().timeIntervalSince(Self.start) }

    func advance(by seconds: TimeInterval) { clock.advance(by: seconds) }

    // MARK: - Building blocks

    /// A new intent of `minorUnits` USD.
    func createIntent(_ minorUnits: Int64 = 1000, capture: CaptureMethod = .manual) async throws -> PaymentIntent {
        try await service.createIntent(try NewPaymentIntent(
            amount: Amount(minorUnits: minorUnits, currency: Self.usd), captureMethod: capture, orderReference: nil))
    }

    /// A card submission ("Pay in app"); expiry 12/30 unless told.
    static func card(_ intentID: String, _ number: String = "4242424242424242", holder: String? = nil, expiry: String = "12/30")
        throws -> PaymentSubmission
    {
        PaymentSubmission(
            intentID: intentID, method: .card(number: try CardNumber(number), expiry: try CardExpiry(expiry), holderName: holder),
            source: .card)
    }

    /// A decrypted Apple Pay token submission, answering a waiting sheet.
    static func applePay(
        _ intentID: String, dpan: String = "4242424242424242", holder: String? = nil, cryptogram: String = "AgAAAAAAAIR8CQrXcIhbQAAAAAA=",
        generatedAt: Date? = nil, amount: Amount? = nil
    ) throws -> PaymentSubmission {
        PaymentSubmission(
            intentID: intentID,
            method: .networkToken(
                dpan: try CardNumber(dpan), expiry: try CardExpiry("12/30"), cryptogram: Cryptogram(cryptogram, generatedAt: generatedAt),
                eci: "07", holderName: holder),
            source: .applePay, amount: amount, answersPaymentSheet: true)
    }

    /// An intent of `minorUnits` USD authorized (manual capture) and then captured in full.
    func capturedIntent(_ minorUnits: Int64 = 10_000, holder: String? = nil) async throws -> PaymentIntent {
        let intent = try await createIntent(minorUnits)
        _ = try await service.authorize(try Self.card(intent.id, holder: holder))
        return try await service.capture(intent.id).intent
    }

    /// The intent with its attempts and refunds, as stored.
    func machine(_ intentID: String) throws -> PaymentStateMachine {
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: databasePath, set: .main, clock: clock)))
        return try #require(try repository.loadMachine(intentID))
    }

    /// The processor's ledger, read through a fresh connection.
    func ledger(_ reference: String? = nil) throws -> [LedgerEntry] {
        try ProcessorLedger(path: ledgerPath, clock: clock).entries(reference: reference, now: clock.now())
    }

    /// The ledger's entries for `reference` as `operation:status` strings, in ledger order.
    func ledgerSummary(_ reference: String) throws -> [String] {
        try ledger(reference).map { "\($0.operation.rawValue):\($0.status.rawValue)" }
    }

    // MARK: - Checks

    /// Asserts the invariants of every intent, alone and since the last check, that the two
    /// ledgers agree (`settled`: nothing may be in flight any more), and that no attempt was
    /// authorized twice: an authorization is only ever sent again after the processor answered
    /// that it did not process the previous one.
    func check(settled: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: databasePath, set: .main, clock: clock)))
        var ids: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) { ids.append($0.id) }
        let machines = try ids.compactMap { try repository.loadMachine($0) }
        for machine in machines {
            let previous = lastSeen.withLock { $0[machine.intent.id] }
            if let previous {
                let broken = Self.stepViolations(from: previous, to: machine)
                #expect(broken.isEmpty, "\(machine.intent.id): \(broken)", sourceLocation: sourceLocation)
            }
        }
        lastSeen.withLock { seen in for machine in machines { seen[machine.intent.id] = machine } }
        let disagreements = LedgerAgreement.disagreements(payments: machines, ledger: try ledger(), settled: settled)
        #expect(disagreements.isEmpty, "\(disagreements)", sourceLocation: sourceLocation)
        let repeated = processor.authorizationsSentAgainWithoutCause()
        #expect(repeated.isEmpty, "authorized again after an answer other than not-processed: \(repeated)", sourceLocation: sourceLocation)
    }

    /// DESIGN §4 across several transitions: terminal states never change, a succeeded
    /// intent's capture never changes, succeeded refunds are never undone, final refunds stay
    /// final, attempts are never removed, the version never goes back.
    static func stepViolations(from before: PaymentStateMachine, to after: PaymentStateMachine) -> [String] {
        var broken = PaymentInvariants.violations(of: after)
        if before.intent.status.isTerminal && after.intent.status != before.intent.status {
            broken.append("a \(before.intent.status) intent became \(after.intent.status)")
        }
        if before.intent.status == .succeeded && after.intent.amountCaptured != before.intent.amountCaptured {
            broken.append("a succeeded intent's captured amount changed")
        }
        if after.intent.version < before.intent.version { broken.append("the version went back") }
        if after.intent.amountRefunded < before.intent.amountRefunded { broken.append("a succeeded refund was undone") }
        for refund in before.refunds where refund.status.isFinal {
            if after.refunds.first(where: { $0.id == refund.id })?.status != refund.status { broken.append("final refund \(refund.id) changed") }
        }
        if !before.attempts.allSatisfy({ old in after.attempts.contains { $0.id == old.id } }) { broken.append("an attempt was removed") }
        return broken
    }
}

/// Forwards every call to a processor and remembers it, with its answer.
final class RecordingProcessor: PaymentProcessor, Sendable {
    /// One call: what, for which reference, and what came back.
    struct Call: Sendable, CustomStringConvertible {
        let operation: String
        let reference: String
        let answer: String
        var description: String { "\(operation) \(reference) → \(answer)" }
    }

    let base: any PaymentProcessor
    private let log = Mutex<[Call]>([])

    init(_ base: any PaymentProcessor) {
        self.base = base
    }

    var calls: [Call] { log.withLock { $0 } }

    /// The calls of `operation` for `reference`, in order.
    func calls(_ operation: String, _ reference: String) -> [Call] {
        calls.filter { $0.operation == operation && $0.reference == reference }
    }

    /// Authorizations sent again although the previous one for the same reference was not
    /// answered "not processed" (an unknown outcome must be looked up, never re-sent).
    func authorizationsSentAgainWithoutCause() -> [Call] {
        var previous: [String: Call] = [:]
        var offending: [Call] = []
        for call in calls where call.operation == "authorize" {
            if let before = previous[call.reference], !before.answer.hasPrefix("not_processed") { offending.append(call) }
            previous[call.reference] = call
        }
        return offending
    }

    private func record<T>(_ operation: String, _ reference: String, _ answer: T, _ name: (T) -> String) -> T {
        log.withLock { $0.append(Call(operation: operation, reference: reference, answer: name(answer))) }
        return answer
    }

    func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome {
        record("authorize", request.reference, await base.authorize(request, timeout: timeout), \.eventSuffix)
    }

    func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
        record("complete_challenge", reference, await base.completeChallenge(reference: reference, passed: passed, timeout: timeout), \.eventSuffix)
    }

    func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome {
        record("capture", request.reference, await base.capture(request, timeout: timeout), \.eventSuffix)
    }

    func void(reference: String, timeout: Duration) async -> ProcessorOutcome {
        record("void", reference, await base.void(reference: reference, timeout: timeout), \.eventSuffix)
    }

    func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome {
        record("refund", request.refundReference, await base.refund(request, timeout: timeout), \.eventSuffix)
    }

    func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
        record("lookup_\(operation.rawValue)", reference, await base.lookup(reference: reference, operation: operation, timeout: timeout)) {
            switch $0 {
            case .found(let outcome): outcome.eventSuffix
            case .notFound: "not_found"
            case .unavailable: "unavailable"
            }
        }
    }
}
