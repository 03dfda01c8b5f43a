import Foundation
import MockProcessor
import MockProcessorServer
import PayPanel
import PayPanelHTTP
import Synchronization

/// Full payment flows per second through `processor serve` with T clients at once
/// (`paypanel bench processor --threads 1,8`, docs/benchmarks.md), optionally beside another
/// Stripe-compatible server (localstripe) measured the same way in the same run.
///
/// A flow is what a shop's backend sends Stripe for one refunded manual-capture payment, as
/// any client sends it: form-encoded `POST /v1/payment_intents` (confirm=true, pm_card_visa),
/// `POST /v1/payment_intents/{id}/capture`, `POST /v1/refunds`. Each of the T clients is an OS
/// thread with its own keep-alive connection (opened before the clock starts) and its own
/// `sk_test_` key, so T flows are in flight at once and no two share an account. Every answer
/// is checked — status 200 and the `status` field the step must produce — so a server that
/// answers errors quickly cannot look fast.
///
/// The thread counts take turns with the servers: for each count, the mock, then the other
/// server; a change of the machine's load falls on both alike.
public struct ProcessorFlowBenchmark: Sendable {
    /// Another server to measure beside the mock: an IPv4 address and a port.
    public struct Endpoint: Sendable, Equatable {
        public let host: String
        public let port: Int
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `http://HOST:PORT` with HOST an IPv4 address or `localhost`, no path; nil otherwise.
        public init?(url: String) {
            var text = Substring(url)
            guard text.hasPrefix("http://") else { return nil }
            text = text.dropFirst("http://".count)
            if text.hasSuffix("/") { text = text.dropLast() }
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
            let host = parts[0] == "localhost" ? "127.0.0.1" : String(parts[0])
            var address = in_addr()
            guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
            self.init(host: host, port: port)
        }

        public var url: String { "http://\(host):\(port)" }
    }

    public let threadCounts: [Int]
    public let seconds: Double
    public let other: Endpoint?
    public let directory: String

    /// Answers a flow makes: create, capture, refund.
    public static let answersPerFlow = 3
    /// The targets: the largest thread count's flows/s at least 3× the first's, and the
    /// mock at least 5× the other server at the largest thread count.
    public static let scalingTarget = 3.0
    public static let otherTarget = 5.0

    public init(threadCounts: [Int], seconds: Double, other: Endpoint?, directory: String) {
        self.threadCounts = threadCounts
        self.seconds = seconds
        self.other = other
        self.directory = directory
    }

    /// What one server did at one thread count.
    public struct Figures: Sendable {
        public let threads: Int
        public let flows: Int
        /// Answers read and found as expected (3 per completed flow).
        public let answersChecked: Int
        public let seconds: Double
        public let p50Milliseconds: Double
        public let p99Milliseconds: Double
        /// CPU per flow, for `processor serve` in this process (nil for another server): the
        /// whole process's (the clients' threads included) and its `mock-processor` thread's,
        /// which every request of every client passes through. That thread's share of a second
        /// (`serialThreadCPUMillisecondsPerFlow` × flows/s ÷ 1000) says how close it is to
        /// bounding the rate.
        public let processCPUMillisecondsPerFlow: Double?
        public let serialThreadCPUMillisecondsPerFlow: Double?
        public var flowsPerSecond: Double { seconds > 0 ? Double(flows) / seconds : 0 }

        func json(ratioToFirst: Double) -> JSONValue {
            .orderedObject([
                ("threads", .number(threads)), ("flows", .number(flows)), ("answersChecked", .number(answersChecked)),
                ("seconds", LifecycleBenchmarkResult.decimal(seconds, places: 3)),
                ("flowsPerSecond", LifecycleBenchmarkResult.decimal(flowsPerSecond, places: 1)),
                ("p50Ms", LifecycleBenchmarkResult.decimal(p50Milliseconds, places: 2)),
                ("p99Ms", LifecycleBenchmarkResult.decimal(p99Milliseconds, places: 2)),
                ("processCPUMsPerFlow", processCPUMillisecondsPerFlow.map { LifecycleBenchmarkResult.decimal($0, places: 3) } ?? .null),
                ("mockProcessorThreadCPUMsPerFlow", serialThreadCPUMillisecondsPerFlow.map { LifecycleBenchmarkResult.decimal($0, places: 3) } ?? .null),
                ("ratioToFirst", LifecycleBenchmarkResult.decimal(ratioToFirst, places: 2)),
            ])
        }
    }

    public struct Result: Sendable {
        public let seconds: Double
        public let mock: [Figures]
        /// The other server's figures, one per thread count it completed (empty when none).
        public let other: [Figures]
        public let otherURL: String?
        /// Why the other server could not run the flow: the step and its answer.
        public let otherFailure: String?

        /// Flows/s at each thread count ÷ flows/s at the first.
        public static func ratiosToFirst(_ figures: [Figures]) -> [Double] {
            guard let first = figures.first, first.flowsPerSecond > 0 else { return figures.map { _ in 0 } }
            return figures.map { $0.flowsPerSecond / first.flowsPerSecond }
        }

        /// The mock's flows/s ÷ the other's, per thread count both completed.
        public var mockOverOther: [Double] {
            zip(mock, other).map { $1.flowsPerSecond > 0 ? $0.flowsPerSecond / $1.flowsPerSecond : 0 }
        }

        /// The largest thread count's ratio to the first (nil with one count).
        public var scaling: Double? { mock.count > 1 ? Self.ratiosToFirst(mock).last : nil }
        public var scalingTargetMet: Bool? { scaling.map { $0 >= ProcessorFlowBenchmark.scalingTarget } }
        /// Mock ÷ other at the largest thread count (nil without another server, or when it failed).
        public var otherRatio: Double? {
            otherFailure == nil && other.count == mock.count && !mock.isEmpty ? mockOverOther.last : nil
        }
        public var otherTargetMet: Bool? { otherRatio.map { $0 >= ProcessorFlowBenchmark.otherTarget } }

        public var json: JSONValue {
            let optionalDecimal = { (value: Double?) in value.map { LifecycleBenchmarkResult.decimal($0, places: 2) } ?? .null }
            let optionalBool = { (value: Bool?) in value.map { JSONValue.bool($0) } ?? .null }
            return .orderedObject([
                ("benchmark", "processor-flows"), ("seconds", LifecycleBenchmarkResult.decimal(seconds, places: 1)),
                ("flow", "POST /v1/payment_intents (confirm, manual capture, pm_card_visa); POST /v1/payment_intents/{id}/capture; POST /v1/refunds"),
                ("mock", .array(zip(mock, Self.ratiosToFirst(mock)).map { $0.json(ratioToFirst: $1) })),
                ("scaling", optionalDecimal(scaling)), ("scalingTarget", LifecycleBenchmarkResult.decimal(ProcessorFlowBenchmark.scalingTarget, places: 1)),
                ("scalingTargetMet", optionalBool(scalingTargetMet)),
                ("other", otherURL.map { url in
                    .orderedObject([
                        ("url", .string(url)),
                        ("figures", .array(zip(other, Self.ratiosToFirst(other)).map { $0.json(ratioToFirst: $1) })),
                        ("mockOverOther", .array(mockOverOther.map { LifecycleBenchmarkResult.decimal($0, places: 2) })),
                        ("failure", otherFailure.map { .string($0) } ?? .null),
                        ("target", LifecycleBenchmarkResult.decimal(ProcessorFlowBenchmark.otherTarget, places: 1)),
                        ("targetMet", optionalBool(otherTargetMet)),
                    ])
                } ?? .null),
            ])
        }
    }

    /// Starts `processor serve` in this process on a free loopback port (its ledger in
    /// `directory`), measures, stops it. A failed answer from the mock fails the benchmark; one
    /// from the other server is reported in the result and that server is not measured further.
    public func run(progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Result {
        let clock = SystemClock()
        let processor = try MockProcessor(ledgerPath: directory + "/processor.sqlite", clock: clock)
        let server = try await ProcessorServer.start(
            processor: processor, clock: clock, configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0))
        let mockEndpoint = Endpoint(host: "127.0.0.1", port: server.port)
        var mock: [Figures] = []
        var others: [Figures] = []
        var otherFailure: String?
        do {
            // Warm-up, untimed, one flow each: first connections, first accounts, lazily built state.
            progress("warming up")
            if case .failed(let failure) = await Self.measure(mockEndpoint, threads: 1, seconds: 0, keyPrefix: "sk_test_flow_warmup", inThisProcess: true) {
                throw BenchmarkFailure(message: "processor serve could not run the flow: \(failure)")
            }
            if let other, case .failed(let failure) = await Self.measure(other, threads: 1, seconds: 0, keyPrefix: "sk_test_flow_warmup") {
                otherFailure = failure
            }
            for (run, threads) in threadCounts.enumerated() {
                progress("\(threads) thread(s): processor serve")
                switch await Self.measure(mockEndpoint, threads: threads, seconds: seconds, keyPrefix: "sk_test_flow_\(run)_\(threads)", inThisProcess: true) {
                case .measured(let figures): mock.append(figures)
                case .failed(let failure): throw BenchmarkFailure(message: "processor serve failed the flow with \(threads) thread(s): \(failure)")
                }
                if let other, otherFailure == nil {
                    progress("\(threads) thread(s): \(other.url)")
                    switch await Self.measure(other, threads: threads, seconds: seconds, keyPrefix: "sk_test_flow_\(run)_\(threads)") {
                    case .measured(let figures): others.append(figures)
                    case .failed(let failure): otherFailure = "with \(threads) thread(s): \(failure)"
                    }
                }
            }
        } catch {
            await server.shutdown(grace: .seconds(5))
            throw error
        }
        await server.shutdown(grace: .seconds(5))
        return Result(seconds: seconds, mock: mock, other: others, otherURL: other?.url, otherFailure: otherFailure)
    }

    enum Measurement: Sendable {
        case measured(Figures)
        case failed(String)
    }

    /// `threads` clients (`ClientThreads`), each on its own thread, connection and key
    /// `keyPrefix_i`, run flows until `seconds` have passed (at least one flow each), then finish
    /// the flow in hand. The time is from the moment every client was connected to the moment
    /// the last one finished. `inThisProcess`: the server runs in this process, so its CPU time
    /// is read over the same span.
    static func measure(_ endpoint: Endpoint, threads: Int, seconds: Double, keyPrefix: String, inThisProcess: Bool = false) async -> Measurement {
        struct Tally: Sendable {
            var latencies: [Double] = []
            var answers = 0
            var failure: String?
        }
        // Set by the first client that fails, so the others stop instead of running on.
        let stop = Atomic<Bool>(false)
        let deadline = Mutex<ContinuousClock.Instant>(.now)
        // Read only when the server is this process's: for another server it would mean nothing.
        let cpuNow = { inThisProcess ? (process: ProcCPUTime.thisProcess(), serialThread: ProcCPUTime.threadsNamed(MockProcessor.threadName)) : nil }
        let cpuBefore = cpuNow()
        let (all, elapsed) = await ClientThreads.run(
            count: threads, onStart: { start in deadline.withLock { $0 = start + .milliseconds(Int64(seconds * 1000)) } }
        ) { index, startLine in
            var tally = Tally()
            let client: BenchmarkHTTPClient
            do {
                client = try BenchmarkHTTPClient(host: endpoint.host, port: endpoint.port, timeoutSeconds: 30, maximumResponseBytes: 1 << 20)
            } catch {
                tally.failure = "client \(index + 1) could not connect: \(error)"
                stop.store(true, ordering: .relaxed)
                return tally
            }
            startLine()
            let clock = ContinuousClock()
            let end = deadline.withLock { $0 }
            let key = "\(keyPrefix)_\(index)"
            repeat {
                let start = clock.now
                do throws(StepFailure) {
                    try Self.flow(client, key: key)
                } catch {
                    tally.failure = "client \(index + 1): \(error.message)"
                    stop.store(true, ordering: .relaxed)
                    break
                }
                tally.latencies.append((clock.now - start).timeInterval)
                tally.answers += Self.answersPerFlow
            } while clock.now < end && !stop.load(ordering: .relaxed)
            return tally
        }
        let cpuAfter = cpuNow()
        if let failure = all.compactMap(\.failure).first { return .failed(failure) }
        let latencies = all.flatMap(\.latencies).sorted()
        let perFlow = { (before: Double?, after: Double?) -> Double? in
            guard let before, let after, !latencies.isEmpty else { return nil }
            return (after - before) * 1000 / Double(latencies.count)
        }
        return .measured(Figures(
            threads: threads, flows: latencies.count, answersChecked: all.reduce(0) { $0 + $1.answers }, seconds: elapsed,
            p50Milliseconds: BenchmarkStatistics.percentile(latencies, 0.5) * 1000,
            p99Milliseconds: BenchmarkStatistics.percentile(latencies, 0.99) * 1000,
            processCPUMillisecondsPerFlow: perFlow(cpuBefore?.process, cpuAfter?.process),
            serialThreadCPUMillisecondsPerFlow: perFlow(cpuBefore?.serialThread, cpuAfter?.serialThread)))
    }

    /// Why a flow step failed: the step and what the server answered.
    struct StepFailure: Error {
        let message: String
    }

    /// One flow; each answer must be a 200 carrying the status its step produces.
    static func flow(_ client: BenchmarkHTTPClient, key: String) throws(StepFailure) {
        let created = try step(
            client, "POST /v1/payment_intents", path: "/v1/payment_intents", key: key,
            form: "amount=1000&currency=usd&capture_method=manual&payment_method=pm_card_visa&confirm=true", expect: "requires_capture")
        guard case .string(let id)? = created["id"], id.hasPrefix("pi_"), id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw StepFailure(message: "POST /v1/payment_intents: the answer has no usable PaymentIntent id")
        }
        _ = try step(client, "POST /v1/payment_intents/{id}/capture", path: "/v1/payment_intents/\(id)/capture", key: key, form: "", expect: "succeeded")
        _ = try step(client, "POST /v1/refunds", path: "/v1/refunds", key: key, form: "payment_intent=\(id)", expect: "succeeded")
    }

    private static func step(
        _ client: BenchmarkHTTPClient, _ name: String, path: String, key: String, form: String, expect: String
    ) throws(StepFailure) -> JSONValue {
        let response: BenchmarkHTTPResponse
        do {
            response = try client.request("POST", path, bearer: key, body: Array(form.utf8), contentType: "application/x-www-form-urlencoded")
        } catch {
            throw StepFailure(message: "\(name): \(error)")
        }
        let answer = { "answered \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))" }
        guard response.status == 200, let json = try? JSONParser().parse(response.body) else {
            throw StepFailure(message: "\(name): \(answer())")
        }
        guard json["status"]?.stringValue == expect else {
            throw StepFailure(message: "\(name): expected status '\(expect)', \(answer())")
        }
        return json
    }
}
