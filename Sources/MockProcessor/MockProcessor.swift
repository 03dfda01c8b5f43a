import Foundation
import PayPanel
import PayPanelHTTP

/// The deterministic, stateful mock payment processor (DESIGN §5, docs/mock-processor.md).
///
/// Its state lives in its own SQLite ledger file, so it survives a crash of the checkout process
/// and several processes can share it. Outcomes are chosen by an explicit scenario, a chain
/// `A|B|C`, a cardholder-name magic value, then the card number (`TriggerSelection`).
///
/// Why an actor: `Database` is a non-`Sendable` connection that needs one owner. The actor owns
/// it, and the compiler checks that nothing else touches it. Each operation runs its ledger work
/// as one synchronous `BEGIN IMMEDIATE` transaction with no suspension point inside, so actor
/// reentrancy cannot interleave two operations' reads and writes; the waits (latency, slow
/// answers, timeouts) happen after the transaction, through the injected `Sleeper`, and let
/// other calls proceed meanwhile. Other processes are kept out by SQLite's write lock.
public actor MockProcessor: PaymentProcessor {
    /// Its own thread: the synchronous store calls below block it, never the cooperative pool
    /// (`ActorThread`).
    private let thread = ActorThread(name: MockProcessor.threadName)
    /// Its thread's name, as `top -H` and /proc show it (`bench processor` reads its CPU time).
    package static let threadName = "mock-processor"
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    /// How many jobs were queued on its thread so far (`ActorThread.jobsEnqueued`).
    package nonisolated var jobsEnqueuedOnItsThread: Int { thread.jobsEnqueued }
    let ledger: ProcessorLedger
    private let clock: any WallClock
    private let sleeper: any Sleeper
    var jitter: SeededRandomNumberGenerator
    /// The rules and timing this processor was created with.
    public nonisolated let configuration: MockProcessorConfiguration

    /// Opens (creating and migrating when needed) the ledger at `ledgerPath`; `:memory:` gives
    /// a private ledger for one process. Time comes from `clock`; waiting goes through `sleeper`
    /// (`ManualClockSleeper` for virtual time in tests).
    public init(
        ledgerPath: String = ProcessorLedger.defaultPath, clock: any WallClock = SystemClock(),
        configuration: MockProcessorConfiguration = MockProcessorConfiguration(), sleeper: any Sleeper = TaskSleeper()
    ) throws {
        self.ledger = try ProcessorLedger(path: ledgerPath, clock: clock)
        self.ledgerPath = ledgerPath
        self.clock = clock
        self.sleeper = sleeper
        self.configuration = configuration
        self.jitter = SeededRandomNumberGenerator(seed: configuration.latencySeed)
    }

    /// The ledger file's path.
    public nonisolated let ledgerPath: String

    // MARK: - PaymentProcessor

    public func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome {
        let now = clock.now()
        return await deliver(timeout: timeout) { try ledger.authorize(request, now: now, configuration: configuration) }
    }

    public func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
        let now = clock.now()
        return await deliver(timeout: timeout) {
            try ledger.completeChallenge(reference: reference, passed: passed, now: now, configuration: configuration)
        }
    }

    public func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome {
        let now = clock.now()
        return await deliver(timeout: timeout) { try ledger.capture(request, now: now) }
    }

    public func void(reference: String, timeout: Duration) async -> ProcessorOutcome {
        let now = clock.now()
        return await deliver(timeout: timeout) { try ledger.void(reference: reference, now: now) }
    }

    public func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome {
        let now = clock.now()
        return await deliver(timeout: timeout) { try ledger.refund(request, now: now, configuration: configuration) }
    }

    public func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
        let latency = configuration.latency.delay(using: &jitter)
        let result: LookupResult
        do {
            result = try ledger.lookup(reference: reference, operation: operation, now: clock.now())
        } catch {
            result = .unavailable(reason: "HTTP 500: the processor failed to read its ledger (\(Self.describe(error)))")
        }
        if latency > timeout {
            await sleeper.sleep(for: timeout)
            return .unavailable(reason: "no answer within \(timeout.spoken)")
        }
        await sleeper.sleep(for: latency)
        if Task.isCancelled { return .unavailable(reason: "cancelled before the answer arrived") }
        return result
    }

    // MARK: - Ledger

    /// The ledger's entries as of the processor's clock (all, or one reference's).
    public func ledgerEntries(reference: String? = nil) throws -> [LedgerEntry] {
        try ledger.entries(reference: reference, now: clock.now())
    }

    // MARK: - Answering

    /// Runs the operation now (the request has arrived), then lets its answer travel back: after
    /// the latency (plus a SLOW delay), unless the caller's timeout runs out first, in which case
    /// the caller gets `.unknown` exactly as from an HTTP client timeout, while what the processor
    /// recorded stays recorded.
    private func deliver(timeout: Duration, _ operation: () throws -> ProcessorAnswer) async -> ProcessorOutcome {
        let latency = configuration.latency.delay(using: &jitter)
        let answer: ProcessorAnswer
        do {
            // The ledger's commit returns before its flush; the answer waits for the flush here,
            // suspending the processor rather than holding its thread, so the operations it
            // serves meanwhile commit into the same flush.
            answer = try await ledger.database.awaitingFlush { try operation() }
        } catch {
            // The transaction rolled back, or its flush failed: a failed COMMIT cannot be told
            // from a lost answer, so the caller must treat it as unknown and look it up.
            let reason = "HTTP 500: the processor failed (\(Self.describe(error))): look the operation up"
            return await respond(.unknown(reason: reason), after: latency, timeout: timeout)
        }
        switch answer {
        case .outcome(let outcome, let extraDelay):
            return await respond(outcome, after: latency + extraDelay, timeout: timeout)
        case .none:
            await sleeper.sleep(for: timeout)
            return Self.noAnswer(timeout)
        case .serverError:
            return await respond(
                .unknown(reason: "HTTP 500 Internal Server Error: the outcome is unknown; look the operation up"),
                after: latency, timeout: timeout)
        case .refused(let reason):
            return await respond(.notProcessed(reason: reason), after: latency, timeout: timeout)
        }
    }

    private func respond(_ outcome: ProcessorOutcome, after delay: Duration, timeout: Duration) async -> ProcessorOutcome {
        if delay > timeout {
            await sleeper.sleep(for: timeout)
            return Self.noAnswer(timeout)
        }
        await sleeper.sleep(for: delay)
        if Task.isCancelled { return .unknown(reason: "cancelled before the processor's answer arrived: look the operation up") }
        return outcome
    }

    private static func noAnswer(_ timeout: Duration) -> ProcessorOutcome {
        .unknown(reason: "no answer within \(timeout.spoken) (timeout): look the operation up")
    }

    private static func describe(_ error: any Error) -> String {
        (error as? any PayPanelError)?.message ?? String(describing: error)
    }
}
