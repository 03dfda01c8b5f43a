import Foundation
import PayPanel

/// Measures the payment lifecycle — create → authorize → capture through `PaymentService` —
/// on fresh database files with the production durability settings (WAL, each commit on disk
/// before it returns: `WALSync`), against a baseline measured in the same run: raw SQLite doing the same
/// number of write transactions, one row of similar size each, on a file with the same
/// settings.
///
/// One payment is `transactionsPerPayment` durable write transactions: five on the payments
/// database (create, attempt opened, authorization answered, capture requested, capture
/// answered) and two on the processor's ledger (authorize, capture). One payment at a time, each
/// commit waits for its own fdatasync on both sides, so the ratio says how much the payment machinery costs on
/// top of those commits.
///
/// The two are interleaved in `rounds` slices (baseline, then lifecycle, again and again) so a
/// machine whose load changes during the run slows both alike.
public struct LifecycleBenchmark: Sendable {
    /// Durable write transactions per payment (see the type's documentation).
    public static let transactionsPerPayment = 7

    /// Payments to run (and baseline "payments" of `transactionsPerPayment` transactions).
    public let count: Int
    /// A directory for the benchmark's files: the payments database, the processor's ledger
    /// (`makeProcessor` opens it) and the baseline database. The caller creates and removes it.
    public let directory: String
    /// Opens the processor on a ledger at the given path, with the given clock.
    public let makeProcessor: @Sendable (String, any WallClock) throws -> any PaymentProcessor
    /// The payments' clock (their timestamps only: the measurement uses `ContinuousClock`).
    public let clock: any WallClock
    /// How many interleaved slices.
    public let rounds: Int
    /// Opens the payments store (default: a SQLite file in `directory`).
    public let makeStore: (@Sendable () throws -> any PaymentStore)?
    /// The raw commits to compare with (default: SQLite, all `transactionsPerPayment` of them).
    public let makeBaseline: (@Sendable () throws -> any CommitBaseline)?
    /// The store's round trips to its server so far (PostgreSQL), read before and after each
    /// slice of payments so the result can say how many one payment costs; nil for SQLite.
    public let roundTrips: (@Sendable () -> Int)?

    /// A benchmark of `count` payments (at least 1) in `directory`.
    public init(
        count: Int, directory: String, clock: any WallClock = SystemClock(), rounds: Int = 10,
        makeStore: (@Sendable () throws -> any PaymentStore)? = nil,
        makeBaseline: (@Sendable () throws -> any CommitBaseline)? = nil,
        roundTrips: (@Sendable () -> Int)? = nil,
        makeProcessor: @escaping @Sendable (String, any WallClock) throws -> any PaymentProcessor
    ) {
        self.makeStore = makeStore
        self.makeBaseline = makeBaseline
        self.roundTrips = roundTrips
        self.count = max(1, count)
        self.directory = directory
        self.clock = clock
        self.rounds = max(1, min(rounds, self.count))
        self.makeProcessor = makeProcessor
    }

    /// Runs the benchmark; `progress` is called with the number of payments done so far.
    public func run(progress: @Sendable (Int) -> Void = { _ in }) async throws -> LifecycleBenchmarkResult {
        let store: any PaymentStore = try makeStore?() ?? SQLitePaymentStore(path: directory + "/payments.sqlite", clock: clock)
        let service = PaymentService(store: store, processor: try makeProcessor(directory + "/processor.sqlite", clock), clock: clock)
        let baseline = try makeBaseline?() ?? SQLiteCommitBaseline(path: directory + "/baseline.sqlite")
        let stopwatch = ContinuousClock()
        var lifecycleTime = Duration.zero
        var baselineTime = Duration.zero
        var done = 0
        // Only the payments' own: not the store's opening, not the baseline (its own connection).
        var paymentRoundTrips = 0
        for round in 0..<rounds {
            let slice = count / rounds + (round < count % rounds ? 1 : 0)
            baselineTime += try stopwatch.measure {
                try baseline.write(transactions: slice * Self.transactionsPerPayment)
            }
            let roundTripsBefore = roundTrips?() ?? 0
            let start = stopwatch.now
            for _ in 0..<slice {
                try await Self.payment(service)
                done += 1
                progress(done)
            }
            lifecycleTime += stopwatch.now - start
            paymentRoundTrips += (roundTrips?() ?? 0) - roundTripsBefore
        }
        return LifecycleBenchmarkResult(
            count: count, lifecycleSeconds: lifecycleTime.timeInterval, baselineSeconds: baselineTime.timeInterval,
            transactionsPerPayment: Self.transactionsPerPayment,
            roundTripsPerPayment: roundTrips == nil ? nil : Double(paymentRoundTrips) / Double(count))
    }

    /// One payment of 10.00 USD, manual capture, captured in full; anything else is an error
    /// (a benchmark of failing payments would measure the wrong thing).
    private static func payment(_ service: PaymentService) async throws {
        let intent = try await service.createIntent(try NewPaymentIntent(
            amount: Amount(minorUnits: 1000, currency: try Currency(code: "USD")), captureMethod: .manual, orderReference: nil))
        // No expiry: a fixed one would start failing the day it lapses.
        let card = PaymentMethodData.card(number: try CardNumber("4242424242424242"), expiry: nil, holderName: nil)
        let authorized = try await service.authorize(PaymentSubmission(intentID: intent.id, method: card, source: .card))
        let captured = try await service.capture(intent.id)
        guard authorized.intent.status == .requiresCapture, captured.intent.status == .succeeded else {
            throw LifecycleBenchmarkError(intentID: intent.id, status: captured.intent.status)
        }
    }

}

/// Raw commits, one small row each: the yardstick of `LifecycleBenchmark`.
public protocol CommitBaseline: AnyObject {
    /// Writes `transactions` transactions of one row each, each committed durably.
    func write(transactions: Int) throws
}

extension LifecycleBenchmark {
    /// The baseline of a payment whose store is not the SQLite file: `storeCommits` of the
    /// `transactionsPerPayment` commits on `store`'s raw baseline, the rest (the processor's
    /// ledger) on SQLite, in the same proportion as a payment makes them.
    public final class MixedCommitBaseline: CommitBaseline {
        let store: any CommitBaseline
        let ledger: any CommitBaseline
        let storeCommits: Int

        public init(store: any CommitBaseline, storeCommits: Int, ledgerPath: String) throws {
            self.store = store
            self.storeCommits = storeCommits
            self.ledger = try SQLiteCommitBaseline(path: ledgerPath)
        }

        public func write(transactions: Int) throws {
            let payments = transactions / LifecycleBenchmark.transactionsPerPayment
            try store.write(transactions: payments * storeCommits)
            try ledger.write(transactions: transactions - payments * storeCommits)
        }
    }
}

extension LifecycleBenchmark {
    /// Raw SQLite: one insert per `BEGIN IMMEDIATE` transaction into a table shaped like the
    /// payments history (an indexed row of about 200 bytes).
    ///
    /// Raw SQL on purpose: this is the yardstick the payment lifecycle is compared with, so it
    /// must measure SQLite itself, not `PaymentStore` (which would measure the store twice).
    final class SQLiteCommitBaseline: CommitBaseline {
        let database: Database
        var next: Int64 = 0

        init(path: String) throws {
            database = try Database(path: path)  // WAL and group commit, as the payments database
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS rows (
                    id INTEGER PRIMARY KEY, intent_id TEXT NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL,
                    data TEXT NOT NULL, occurred_at INTEGER NOT NULL, UNIQUE (intent_id, version)
                ) STRICT
                """)
        }

        func write(transactions: Int) throws {
            let data = #"{"amount":1000,"currency":"USD","captureMethod":"manual","attemptId":"att_0000000000000000000000","status":"requires_capture","note":"baseline row of a similar size"}"#
            for _ in 0..<transactions {
                next += 1
                let number = next
                try database.write {
                    try database.execute(
                        "INSERT INTO rows (intent_id, version, type, data, occurred_at) VALUES (?, ?, ?, ?, ?)",
                        ["pi_\(number / 7)", number % 7, "baseline_row", data, number])
                }
            }
        }
    }
}

/// What `LifecycleBenchmark` measured.
public struct LifecycleBenchmarkResult: Sendable, JSONRepresentable {
    public let count: Int
    /// Time spent in the lifecycle (all slices).
    public let lifecycleSeconds: Double
    /// Time spent in the baseline (all slices).
    public let baselineSeconds: Double
    public let transactionsPerPayment: Int
    /// The store's round trips to its server per payment (PostgreSQL); nil for SQLite, which
    /// has no server.
    public let roundTripsPerPayment: Double?

    /// A result of `count` payments that took `lifecycleSeconds`, against a baseline of
    /// `count × transactionsPerPayment` raw write transactions that took `baselineSeconds`.
    public init(
        count: Int, lifecycleSeconds: Double, baselineSeconds: Double, transactionsPerPayment: Int, roundTripsPerPayment: Double? = nil
    ) {
        self.count = count
        self.lifecycleSeconds = lifecycleSeconds
        self.baselineSeconds = baselineSeconds
        self.transactionsPerPayment = transactionsPerPayment
        self.roundTripsPerPayment = roundTripsPerPayment
    }

    /// Payments completed per second.
    public var paymentsPerSecond: Double { Double(count) / lifecycleSeconds }
    /// Baseline "payments" per second: groups of `transactionsPerPayment` raw write
    /// transactions per second.
    public var baselinePerSecond: Double { Double(count) / baselineSeconds }
    /// `paymentsPerSecond / baselinePerSecond`: 1 would mean the machinery costs nothing on
    /// top of its commits.
    public var ratio: Double { paymentsPerSecond / baselinePerSecond }

    /// `{"count", "paymentsPerSecond", "baselinePerSecond", "ratio"}`: rates with one decimal,
    /// the ratio with three; on PostgreSQL also `"roundTripsPerPayment"`, with one decimal.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("count", .number(count)), ("paymentsPerSecond", Self.decimal(paymentsPerSecond, places: 1)),
            ("baselinePerSecond", Self.decimal(baselinePerSecond, places: 1)), ("ratio", Self.decimal(ratio, places: 3)),
        ]
        if let roundTripsPerPayment { members.append(("roundTripsPerPayment", Self.decimal(roundTripsPerPayment, places: 1))) }
        return .orderedObject(members)
    }

    /// `value` as a JSON number literal with `places` decimals; null if it is not finite.
    static func decimal(_ value: Double, places: Int) -> JSONValue {
        guard value.isFinite else { return .null }
        // "%.Nf" of a finite Double is digits, an optional '-', and one '.': a JSON number.
        return .number(JSONNumber(validatedLiteral: String(format: "%.\(places)f", value)))
    }
}

/// A benchmark payment did not end captured: the numbers would be meaningless.
public struct LifecycleBenchmarkError: PayPanelError {
    public let intentID: String
    public let status: PaymentStatus
    public var code: String { "benchmark_payment_failed" }
    public var message: String {
        "benchmark payment \(intentID) ended \(status.rawValue), not succeeded: the processor is not the zero-latency approving mock, or the payment flow is broken"
    }
}

