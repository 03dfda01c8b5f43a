import Foundation
import MockProcessor
import MockProcessorServer
import PayPanel
import PayPanelHTTP

/// Authorizations per second through the mock processor in process, and through
/// `HTTPPaymentProcessor` against `processor serve` on loopback (the same mock behind the HTTP
/// core, the Stripe layer and a fresh TCP connection per call), in one run: the ratio is what
/// the network path costs. Interleaved rounds, medians, as the other benchmarks.
public enum ProcessorBenchmark {
    public struct Result: Sendable {
        public let count: Int
        public let rounds: Int
        public let inProcessPerSecond: Double
        public let overHTTPPerSecond: Double
        /// Median of the per-round ratios (HTTP / in process).
        public let ratio: Double

        public var json: JSONValue {
            .orderedObject([
                ("benchmark", "processor"), ("count", .number(count)), ("rounds", .number(rounds)),
                ("in_process_per_second", .number(JSONNumber(Int(inProcessPerSecond.rounded())))),
                ("over_http_per_second", .number(JSONNumber(Int(overHTTPPerSecond.rounded())))),
                ("ratio", .string(String(format: "%.3f", ratio))),
            ])
        }
    }

    /// Runs `count` authorizations each way in `rounds` rounds; ledgers go in `directory`.
    /// Each round uses a new test key on the server (its own account), as a test suite would.
    public static func run(count: Int, rounds: Int, directory: String) async throws -> Result {
        let usd = try Currency(code: "USD")
        let clock = SystemClock()
        let local = try MockProcessor(ledgerPath: directory + "/bench-in-process.sqlite", clock: clock)
        let served = try MockProcessor(ledgerPath: directory + "/bench-served.sqlite", clock: clock)
        let server = try await ProcessorServer.start(processor: served, clock: clock, configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0))
        let endpoint = try ProcessorEndpoint("http://127.0.0.1:\(server.port)")
        var inProcess: [Double] = []
        var overHTTP: [Double] = []
        let card = try CardNumber("4242424242424242")
        let expiry = try CardExpiry(month: 12, year: 2034)
        func request(_ reference: String) -> AuthorizationRequest {
            AuthorizationRequest(reference: reference, amount: Amount(minorUnits: 1000, currency: usd),
                                 paymentMethod: .card(number: card, expiry: expiry, holderName: nil))
        }
        for round in 0..<rounds {
            let chunk = count / rounds + (round < count % rounds ? 1 : 0)
            let localStart = ContinuousClock.now
            for index in 0..<chunk {
                guard case .approved = await local.authorize(request("bench_\(round)_\(index)"), timeout: .seconds(30)) else {
                    throw BenchmarkFailure(message: "the in-process mock did not approve authorization \(index) of round \(round + 1)")
                }
            }
            inProcess.append(Double(chunk) / BenchmarkStatistics.seconds(since: localStart))
            let remote = HTTPPaymentProcessor(endpoint: endpoint, secretKey: "sk_test_bench_\(round)")
            let remoteStart = ContinuousClock.now
            for index in 0..<chunk {
                let outcome = await remote.authorize(request("bench_\(round)_\(index)"), timeout: .seconds(30))
                guard case .approved = outcome else {
                    throw BenchmarkFailure(message: "processor serve did not approve authorization \(index) of round \(round + 1): \(outcome)")
                }
            }
            overHTTP.append(Double(chunk) / BenchmarkStatistics.seconds(since: remoteStart))
        }
        await server.shutdown(grace: .seconds(5))
        return Result(
            count: count, rounds: rounds, inProcessPerSecond: BenchmarkStatistics.median(inProcess), overHTTPPerSecond: BenchmarkStatistics.median(overHTTP),
            ratio: BenchmarkStatistics.median(zip(overHTTP, inProcess).map { $0 / $1 }))
    }
}

/// A benchmark that could not run as designed.
public struct BenchmarkFailure: PayPanelError {
    public let message: String
    public var code: String { "benchmark_failed" }
}
