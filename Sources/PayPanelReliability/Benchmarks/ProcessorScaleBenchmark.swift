import Foundation
import MockProcessor
import MockProcessorServer
import PayPanel

/// Does an authorization through `processor serve` cost the same in a large account as in a
/// small one? (`paypanel bench processor-scale`, docs/benchmarks.md.)
///
/// How: accounts of each size are seeded in process (`ProcessorServer.seedAccounts`: the real
/// service and ledger, without thousands of HTTP calls), then this binary is started as
/// `processor serve --port 0` on that ledger, and the timed authorizations go to it over HTTP
/// as any client's do — `POST /v1/payment_intents` with `confirm=true` on one keep-alive
/// connection — so each one pays for exactly what a request pays for in `processor serve`:
/// the HTTP core, the Stripe layer, the ledger and the account's own write.
///
/// Every timed authorization adds an intent to its account. So that an account of 10 is still
/// an account of about 10 when it is measured, each account takes at most a tenth of its size
/// in timed authorizations (at least one): 200 authorizations at size 10 use 200 accounts of
/// 10 intents, at size 10,000 one account. The sizes take turns in every round (the first
/// rotating), so a change of the machine's load falls on all of them alike.
public struct ProcessorScaleBenchmark: Sendable {
    public let sizes: [Int]
    public let authorizations: Int
    public let rounds: Int
    public let directory: String
    public let executable: String

    /// At most this many accounts per run: the server keeps 1,000 at most.
    public static let maximumAccounts = 900

    public init(sizes: [Int], authorizations: Int, rounds: Int, directory: String, executable: String) {
        self.sizes = sizes
        self.authorizations = authorizations
        self.rounds = rounds
        self.directory = directory
        self.executable = executable
    }

    /// How many timed authorizations one account of `size` takes.
    static func authorizationsPerAccount(size: Int) -> Int { max(1, size / 10) }

    /// How many accounts a size needs for `authorizations` timed ones.
    static func accounts(size: Int, authorizations: Int) -> Int {
        let each = authorizationsPerAccount(size: size)
        return (authorizations + each - 1) / each
    }

    /// The accounts the run would seed (checked before anything starts).
    public static func accountCount(sizes: [Int], authorizations: Int) -> Int {
        sizes.reduce(0) { $0 + accounts(size: $1, authorizations: authorizations) }
    }

    /// Latency figures of one size.
    public struct SizeFigures: Sendable {
        public let size: Int
        public let accounts: Int
        public let authorizations: Int
        public let medianMilliseconds: Double
        public let p99Milliseconds: Double

        var json: JSONValue {
            .orderedObject([
                ("intents", .number(size)), ("accounts", .number(accounts)), ("authorizations", .number(authorizations)),
                ("medianMs", LifecycleBenchmarkResult.decimal(medianMilliseconds, places: 2)),
                ("p99Ms", LifecycleBenchmarkResult.decimal(p99Milliseconds, places: 2)),
            ])
        }
    }

    public struct Result: Sendable {
        public let figures: [SizeFigures]
        public let rounds: Int
        public let seedingSeconds: Double
        /// The largest size's median ÷ the smallest's.
        public var medianRatio: Double { ratio(\.medianMilliseconds) }
        /// The largest size's p99 ÷ the smallest's.
        public var p99Ratio: Double { ratio(\.p99Milliseconds) }
        /// The issue's target: a large account's median within 1.5× of a small one's.
        public static let ratioTarget = 1.5
        public var targetMet: Bool { medianRatio <= Self.ratioTarget }
        /// `processor serve`'s exit status after SIGTERM.
        public let serverExitStatus: Int32

        private func ratio(_ key: KeyPath<SizeFigures, Double>) -> Double {
            guard let small = figures.first, let large = figures.last, small[keyPath: key] > 0 else { return 0 }
            return large[keyPath: key] / small[keyPath: key]
        }

        public var json: JSONValue {
            .orderedObject([
                ("benchmark", "processor-scale"), ("rounds", .number(rounds)), ("sizes", .array(figures.map(\.json))),
                ("medianRatio", LifecycleBenchmarkResult.decimal(medianRatio, places: 3)),
                ("p99Ratio", LifecycleBenchmarkResult.decimal(p99Ratio, places: 3)),
                ("target", LifecycleBenchmarkResult.decimal(Self.ratioTarget, places: 1)), ("targetMet", .bool(targetMet)),
                ("seedingSeconds", LifecycleBenchmarkResult.decimal(seedingSeconds, places: 1)),
                ("serverExitStatus", .number(Int(serverExitStatus))),
            ])
        }
    }

    /// Seeds, starts the server, measures, stops it. `progress` gets a line per step.
    public func run(progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        let ledgerPath = directory + "/processor.sqlite"
        let plan: [(size: Int, keys: [String])] = sizes.map { size in
            (size, (0..<Self.accounts(size: size, authorizations: self.authorizations)).map { "sk_test_scale_\(size)_\($0)" })
        }
        progress("seeding \(plan.map { "\($0.keys.count) account(s) of \($0.size)" }.joined(separator: ", ")) in process")
        let seedingStart = ContinuousClock.now
        do {
            let processor = try MockProcessor(ledgerPath: ledgerPath, clock: SystemClock())
            try await ProcessorServer.seedAccounts(
                plan.flatMap { entry in entry.keys.map { (key: $0, intents: entry.size) } }, processor: processor, clock: SystemClock())
        }
        let seedingSeconds = (ContinuousClock.now - seedingStart).timeInterval

        progress("starting processor serve on the seeded ledger")
        var environment = ProcessInfo.processInfo.environment
        environment["PAYPANEL_NOW"] = nil
        let server = try ListeningProcess(
            executable, ["processor", "serve", "--port", "0", "--json", "--processor-db", ledgerPath],
            environment: environment, outputPrefix: directory + "/processor-serve", workingDirectory: directory)
        var serverStopped = false
        defer { if !serverStopped { server.crash() } }

        let port = server.port
        let authorizations = authorizations
        let rounds = rounds
        let latencies = try await Self.onThread { () throws -> [[Double]] in
            let client = try BenchmarkHTTPClient(port: port)
            // Warm-up, untimed, on an account of its own: the connection, the server's first requests.
            for index in 0..<10 { _ = try Self.authorize(client, key: "sk_test_scale_warmup", what: "warm-up authorization \(index + 1)") }
            var latencies = Array(repeating: [Double](), count: plan.count)
            var done = Array(repeating: 0, count: plan.count)
            for round in 0..<rounds {
                progress("round \(round + 1) of \(rounds)")
                for turn in 0..<plan.count {
                    let index = (turn + round) % plan.count
                    let (size, keys) = plan[index]
                    let target = authorizations * (round + 1) / rounds
                    while done[index] < target {
                        let key = keys[done[index] / Self.authorizationsPerAccount(size: size)]
                        let start = ContinuousClock.now
                        _ = try Self.authorize(client, key: key, what: "authorization \(done[index] + 1) at \(size) intents")
                        latencies[index].append((ContinuousClock.now - start).timeInterval)
                        done[index] += 1
                    }
                }
            }
            return latencies
        }
        let exitStatus = server.stop(within: .seconds(30))
        serverStopped = true
        let figures = zip(plan, latencies).map { entry, measured in
            let sorted = measured.sorted()
            return SizeFigures(
                size: entry.size, accounts: entry.keys.count, authorizations: sorted.count,
                medianMilliseconds: BenchmarkStatistics.percentile(sorted, 0.5) * 1000, p99Milliseconds: BenchmarkStatistics.percentile(sorted, 0.99) * 1000)
        }
        return Result(figures: figures, rounds: rounds, seedingSeconds: seedingSeconds, serverExitStatus: exitStatus)
    }

    /// One `POST /v1/payment_intents` with `confirm=true`; anything but an authorized intent
    /// fails the benchmark (it would not measure what it says).
    private static func authorize(_ client: BenchmarkHTTPClient, key: String, what: String) throws -> BenchmarkHTTPResponse {
        let body = #"{"amount":1000,"currency":"usd","confirm":true,"capture_method":"manual","payment_method":"pm_card_visa"}"#
        let response: BenchmarkHTTPResponse
        do {
            response = try client.request("POST", "/v1/payment_intents", bearer: key, body: Array(body.utf8))
        } catch {
            throw BenchmarkFailure(message: "\(what): \(error)")
        }
        let status = (try? JSONParser().parse(response.body))?["status"]?.stringValue
        guard response.status == 200, status == "requires_capture" else {
            throw BenchmarkFailure(message: "\(what): processor serve answered \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        }
        return response
    }

    /// Runs blocking socket work on a thread of its own, off Swift's cooperative pool.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
        }
    }

}
