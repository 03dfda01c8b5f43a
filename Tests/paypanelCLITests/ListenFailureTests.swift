import Foundation
import PayPanel
import TestSupport
import Testing

/// A command that cannot listen (the port is taken) says so in one `Error:` line naming the
/// address and `--port 0`, exits 1, and `serve` has not spent the API key it would have shown
/// once: it binds first and makes the key after.
@Suite struct ListenFailureTests {
    static let environment = ["PAYPANEL_NOW": "2026-11-29T12:00:00Z"]

    @Test(arguments: [
        ["serve"], ["processor", "serve"], ["webhooks", "listen", "--secret", "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3"],
    ])
    func aTakenPortIsOneErrorLineSuggestingPortZero(command: [String]) throws {
        let directory = try TemporaryDirectory()
        let taken = try HeldPort(listening: true)
        let result = try CLIRunner.run(command + ["--port", String(taken.port)], in: directory, environment: Self.environment, timeout: 30)
        #expect(result.signal == nil && result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "no 'listening' line: \(result)")
        let errors = result.stderrLines.filter { $0.hasPrefix("Error:") }
        try #require(errors.count == 1, "\(result)")
        #expect(errors[0] == "Error: could not listen on 127.0.0.1:\(taken.port): address already in use: another process holds port \(taken.port): stop it, or pick another port with --port (--port 0 picks a free one)", "\(result)")
    }

    @Test func serveOnATakenPortCreatesNoAPIKey() throws {
        let directory = try TemporaryDirectory()
        let taken = try HeldPort(listening: true)
        let result = try CLIRunner.run(["serve", "--port", String(taken.port)], in: directory, environment: Self.environment, timeout: 30)
        #expect(result.status == 1, "\(result)")
        #expect(!result.stderr.contains("API key created"), "\(result)")
        #expect(!result.stderr.contains("sk_"), "no key may be shown by a server that did not start: \(result)")

        // The database was opened (and migrated) before the bind failed, but holds no key: the
        // next `serve` that can listen still makes and shows the first one.
        let keys = try CLIRunner.run(["keys", "list", "--json"], in: directory, environment: Self.environment)
        #expect(keys.status == 0, "\(keys)")
        #expect(try JSONParser().parse(keys.stdout) == [], "\(keys)")
    }
}
