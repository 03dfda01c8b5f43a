import Foundation
import PayPanel
import Testing
import TestSupport

/// Two `paypanel serve` processes on one SQLite database, both started at once under the same
/// virtual time, with an authorization expiry already due: exactly one worker fires it. The
/// intent's history has one transition out of requires_capture, and of the two servers' worker
/// lines on stderr, exactly one reports a timer.
@Suite struct TwoServersTimerTests {
    @Test func exactlyOneOfTwoServersFiresADueTimer() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let first = try await ServerProcess.start(directory: directory, arguments: ["--now", "2026-11-01T10:00:00Z"])
        let id = try await first.createIntent(capture: "manual")
        let confirmed = try await first.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(confirmed["status"] == "requires_capture", "\(confirmed.text)")
        #expect(await first.terminate() == 0)

        // A month later the authorization's expiry is due the moment either worker looks.
        let later = ["--now", "2026-12-01T10:00:00Z"]
        async let a = ServerProcess.start(directory: directory, arguments: later, key: first.key)
        async let b = ServerProcess.start(directory: directory, arguments: later, key: first.key)
        let servers = try await [a, b]
        var status = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            status = try await servers[0].request("GET", "/v1/payment_intents/\(id)")["status"]?.stringValue ?? ""
            if status != "requires_capture" && status != "processing" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(["expired", "canceled"].contains(status), "\(status)")
        // Both workers run several more passes before what they did is looked at.
        for server in servers { try await server.waitForWorkerPasses(5) }
        let history = try await servers[1].request("GET", "/v1/payment_intents/\(id)?include=events")
        let events = history["events"]?.arrayValue ?? []
        let fromRequiresCapture = events.filter { $0["from_status"] == "requires_capture" }
        #expect(fromRequiresCapture.count == 1, "\(events.map { $0["type"]?.stringValue ?? "?" })")
        #expect(events.filter { $0["to_status"] == "expired" }.count <= 1)
        for server in servers { #expect(await server.terminate() == 0) }

        let timerLines = servers.map { server in
            server.stderr.split(separator: "\n").filter { $0.contains(#""worker":"reconcile""#) && !$0.contains(#""timers":0"#) }
        }
        #expect(timerLines.map(\.count).sorted() == [0, 1], "\(timerLines)")
        let fired = try JSONParser().parse(String(try #require(timerLines.flatMap { $0 }.first)))
        #expect(fired["timers"] == 1, "\(fired)")
    }
}
