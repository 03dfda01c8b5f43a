import Foundation
import PayPanelReliability
import Testing
import TestSupport

/// `bench processor --threads`' workload does what it says it measures: flows complete against
/// an in-process `processor serve` and every answer is checked. Speed is never asserted.
@Suite struct ProcessorFlowBenchmarkTests {
    @Test("one and two threads complete flows, three checked answers each")
    func flowsComplete() async throws {
        let directory = try TemporaryDirectory("procflow-bench")
        let benchmark = ProcessorFlowBenchmark(threadCounts: [1, 2], seconds: 0.2, other: nil, directory: directory.path)
        let result = try await benchmark.run()
        #expect(result.mock.map(\.threads) == [1, 2])
        for figures in result.mock {
            // Each client runs at least one flow, so two threads make at least two.
            #expect(figures.flows >= figures.threads, "\(figures)")
            #expect(figures.answersChecked == ProcessorFlowBenchmark.answersPerFlow * figures.flows)
            #expect(figures.p50Milliseconds > 0 && figures.p99Milliseconds >= figures.p50Milliseconds)
        }
        #expect(result.scaling != nil && result.other.isEmpty && result.otherURL == nil && result.otherFailure == nil)
    }

    @Test("a server that cannot run the flow is reported with the step, not a crash, and the mock is still measured")
    func otherServerFailureIsReported() async throws {
        let directory = try TemporaryDirectory("procflow-bench")
        // Port 1 on loopback: nothing listens there, so connecting fails.
        let other = try #require(ProcessorFlowBenchmark.Endpoint(url: "http://localhost:1"))
        let benchmark = ProcessorFlowBenchmark(threadCounts: [1, 2], seconds: 0.1, other: other, directory: directory.path)
        let result = try await benchmark.run()
        #expect(result.mock.count == 2 && result.mock.allSatisfy { $0.flows > 0 })
        #expect(result.other.isEmpty && result.otherRatio == nil)
        #expect(result.otherFailure?.contains("could not connect") == true, "\(result.otherFailure ?? "nil")")
    }

    @Test("--against takes http://HOST:PORT only", arguments: [
        ("http://127.0.0.1:8420", true), ("http://localhost:8420/", true), ("https://127.0.0.1:8420", false),
        ("http://127.0.0.1:8420/v1", false), ("http://example.com:80", false), ("http://127.0.0.1", false),
    ])
    func endpoints(url: String, valid: Bool) {
        #expect((ProcessorFlowBenchmark.Endpoint(url: url) != nil) == valid)
    }
}
