import Foundation
import MockProcessor
import PayPanel
import Testing

/// `--latency` parsing, seeded jitter, and how delays meet the caller's timeout, in virtual time.
@Suite struct LatencyTests {
    @Test(arguments: [
        ("0", Duration.zero, Duration.zero),
        ("50ms", .milliseconds(50), .zero),
        ("50ms±20ms", .milliseconds(50), .milliseconds(20)),
        ("50ms+-20ms", .milliseconds(50), .milliseconds(20)),
        ("1.5s", .milliseconds(1500), .zero),
        ("2s±0.25s", .seconds(2), .milliseconds(250)),
        ("60s", .seconds(60), .zero),
        ("10ms±10ms", .milliseconds(10), .milliseconds(10)),
    ])
    func latencyParsesDelayAndJitter(_ text: String, _ base: Duration, _ jitter: Duration) throws {
        let latency = try Latency.parse(text)
        #expect(latency.base == base)
        #expect(latency.jitter == jitter)
    }

    @Test func latencyPrintsInTheFormItParses() throws {
        for text in ["0", "50ms", "50ms±20ms", "1500ms", "2s±250ms"] {
            #expect(try Latency.parse(text).description == text)
        }
    }

    @Test(arguments: [
        ("", "is empty"),
        ("50", "has no unit"),
        ("50 ms", "white space"),
        ("50ms ± 20ms", "white space"),
        ("fast", "has no unit"),
        ("ms", "is not <delay>"),
        ("-5ms", "is not <delay>"),
        ("+5ms", "is not <delay>"),
        ("0.5ms", "finer than a millisecond"),
        ("1.2345s", "finer than a millisecond"),
        ("50ms±", "is not <delay>"),
        ("50ms±20ms±1ms", "is not <delay>"),
        ("20ms±30ms", "jitter larger than its delay"),
        ("61s", "above the 60s maximum"),
        ("99999999999s", "above the 60s maximum"),
        ("1e3ms", "is not <delay>"),
    ])
    func badLatenciesAreRejectedWithAReason(_ text: String, _ reason: String) {
        do {
            let latency = try Latency.parse(text)
            Issue.record("\(text) parsed as \(latency)")
        } catch {
            #expect(error.code == "invalid_latency")
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func jitterIsDeterministicForASeedAndStaysInRange() async throws {
        func delays(seed: UInt64) async throws -> [TimeInterval] {
            let latency = try Latency.parse("50ms±20ms")
            let harness = try ProcessorHarness(configuration: MockProcessorConfiguration(latency: latency, latencySeed: seed))
            var delays: [TimeInterval] = []
            for index in 0..<50 {
                let before = harness.clock.now()
                _ = await harness.processor.lookup(reference: "att_\(index)", operation: .authorize, timeout: callerTimeout)
                delays.append(harness.clock.now().timeIntervalSince(before))
            }
            return delays
        }
        let first = try await delays(seed: 7)
        #expect(try await delays(seed: 7) == first)
        #expect(try await delays(seed: 8) != first)
        #expect(first.allSatisfy { $0 >= 0.030 - 1e-6 && $0 <= 0.070 + 1e-6 })
        // The draws spread over the range rather than sitting on one value.
        #expect(Set(first.map { Int($0 * 1000) }).count > 10)
    }

    @Test func latencyDelaysEveryAnswer() async throws {
        let harness = try ProcessorHarness(configuration: MockProcessorConfiguration(latency: try Latency.parse("200ms")))
        #expect(try await harness.processor.approvedAuthorization("att_1") != nil)
        #expect(abs(harness.elapsed - 0.2) < 1e-6)
        // Recorded when the request arrived, answered 200 ms later.
        #expect(try harness.entries().first?.createdAt == ProcessorHarness.start)
    }

    @Test func latencyAboveTheTimeoutIsAnUnknownOutcomeButTheOperationHappened() async throws {
        let harness = try ProcessorHarness(configuration: MockProcessorConfiguration(latency: try Latency.parse("2s")))
        let request = Requests.authorization("att_1", method: try Requests.card())
        let outcome = await harness.processor.authorize(request, timeout: .seconds(1))
        guard case .unknown(let reason) = outcome else {
            Issue.record("expected unknown, got \(outcome)")
            return
        }
        #expect(reason == "no answer within 1 s (timeout): look the operation up")
        #expect(harness.elapsed == 1)
        #expect(try harness.entries().count == 1)
        // A lookup that itself times out is unavailable, not "not found".
        if case .unavailable = await harness.processor.lookup(reference: "att_1", operation: .authorize, timeout: .seconds(1)) {
        } else {
            Issue.record("a lookup slower than its timeout must be unavailable")
        }
    }

    @Test(arguments: [(5, 25, true), (25, 25, true), (26, 25, false), (40, 25, false)])
    func slowApprovalsMeetTheCallersDeadlineInVirtualTime(_ seconds: Int, _ timeout: Int, _ answered: Bool) async throws {
        let harness = try ProcessorHarness()
        let request = Requests.authorization("att_1", method: try Requests.card(holder: "SLOW_\(seconds)S"))

        let outcome = await harness.processor.authorize(request, timeout: .seconds(timeout))

        #expect(harness.elapsed == TimeInterval(answered ? seconds : timeout))
        #expect(answered ? outcome.approval != nil : outcome.isUnknown)
        // Either way the approval is recorded: a late approval the caller must reverse.
        #expect(try harness.entries().map(\.status) == [.approved])
        guard case .found(.approved) = await harness.processor.lookup(reference: "att_1", operation: .authorize, timeout: .seconds(timeout))
        else {
            Issue.record("lookup must find the slow approval")
            return
        }
    }

    @Test func aRealSleeperReallyWaits() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        await TaskSleeper().sleep(for: .milliseconds(30))  // sleep is the test: the real sleeper's wait is measured
        #expect(clock.now - start >= .milliseconds(30))
    }
}
