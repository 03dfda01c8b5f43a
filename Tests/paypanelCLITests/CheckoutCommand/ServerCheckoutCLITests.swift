import Foundation
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// `paypanel checkout --server`: the device against a real `paypanel serve` process. What a
/// payer's path leaves on the server is read back through the server's own API.
@Suite("checkout --server against paypanel serve")
struct ServerCheckoutCLITests {
    @Test("Quitting after the server refused the token cancels the intent and closes the checkout, and says so")
    func quittingAfterARefusedTokenCancelsOnTheServer() async throws {
        // Without --test-root the server refuses the device's test-signed token.
        let server = try await CheckoutServer.start(testRoot: false)
        defer { server.kill() }
        let result = try await server.checkout(["expand", "buy", "confirm", "quit"])
        #expect(result.status == 1, "an error screen ends as a failure: \(result)")
        let events = try LineCheckoutHarness.events(result)
        #expect(events.contains { $0["code"]?.stringValue == "token_root_not_trusted" }, "\(result.stdout)")
        let exit = try #require(events.last)
        #expect(exit["event"] == "exit" && exit["status"] == "canceled", "\(exit)")
        let intentID = try #require(exit["intentId"]?.stringValue, "the refused pay's intent is known: \(exit)")
        let closed = try #require(events.first { $0["event"] == "checkout_closed" }, "\(result.stdout)")
        #expect(closed["status"] == "canceled", "\(closed)")
        let checkoutID = try #require(closed["checkoutId"]?.stringValue)

        #expect(try server.get("/v1/payment_intents/\(intentID)")["status"] == "canceled")
        #expect(try server.get("/v1/checkouts/\(checkoutID)")["status"] == "canceled")
        #expect(await server.stop() == 0)
    }

    @Test("Quitting at the banner closes the server's checkout, and the last line says so")
    func quittingAtTheBannerClosesTheCheckout() async throws {
        let server = try await CheckoutServer.start(testRoot: true)
        defer { server.kill() }
        let result = try await server.checkout(["quit"], json: false)
        #expect(result.status == 0, "\(result)")
        let last = try #require(result.stdoutLines.last)
        let range = try #require(last.range(of: #"co_[A-Za-z0-9]+"#, options: .regularExpression), "\(last)")
        #expect(last == "Left the checkout; no payment was started. Checkout \(last[range]) canceled on the server.")
        #expect(try server.get("/v1/checkouts/\(last[range])")["status"] == "canceled")
        #expect(await server.stop() == 0)
    }

    @Test("Quitting during the 3-D Secure challenge cancels the waiting intent and closes the checkout")
    func quittingDuringTheChallengeCancelsOnTheServer() async throws {
        let server = try await CheckoutServer.start(testRoot: true)
        defer { server.kill() }
        // Card 7 asks for 3-D Secure: the intent waits in requires_action.
        let result = try await server.checkout(["expand", "buy", "card 7", "confirm", "quit"])
        #expect(result.status == 0, "\(result)")
        let events = try LineCheckoutHarness.events(result)
        #expect(events.contains { $0["event"] == "challenge" }, "\(result.stdout)")
        let exit = try #require(events.last)
        #expect(exit["reason"] == "quit" && exit["status"] == "canceled", "\(exit)")
        let intentID = try #require(exit["intentId"]?.stringValue)
        let closed = try #require(events.first { $0["event"] == "checkout_closed" }, "\(result.stdout)")
        #expect(try server.get("/v1/payment_intents/\(intentID)")["status"] == "canceled")
        #expect(try server.get("/v1/checkouts/\(closed["checkoutId"]?.stringValue ?? "")")["status"] == "canceled")
        #expect(await server.stop() == 0)
    }

    @Test("With manual capture the next step is the server's capture call, which works; no local database appears")
    func theNextStepIsTheServersCaptureCall() async throws {
        let server = try await CheckoutServer.start(testRoot: true)
        defer { server.kill() }
        let result = try await server.checkout(["expand", "buy", "confirm", "done"], options: ["--capture", "manual"])
        #expect(result.status == 0, "\(result)")
        let events = try LineCheckoutHarness.events(result)
        let approved = try #require(events.first { $0["event"] == "approved" }, "\(result.stdout)")
        let intentID = try #require(approved["intentId"]?.stringValue)
        let capture = "POST \(server.url)/v1/payment_intents/\(intentID)/capture with the secret key"
        #expect(approved["next"]?.stringValue == capture, "\(approved)")

        let text = try await server.checkout(["expand", "buy", "confirm", "done"], options: ["--capture", "manual"], json: false)
        #expect(text.stdout.contains("POST \(server.url)/v1/payment_intents/"), "\(text.stdout)")
        #expect(text.stdoutLines.last?.contains("requires_capture (capture it with POST \(server.url)/v1/payment_intents/") == true, "\(text)")
        #expect(!text.stdout.contains("paypanel payments") && !text.stdout.contains("paypanel reconcile"), "\(text.stdout)")

        // Following the printed step captures the payment.
        #expect(try server.post("/v1/payment_intents/\(intentID)/capture")["status"] == "succeeded")
        let stray = try FileManager.default.contentsOfDirectory(atPath: server.deviceDirectory.path).filter { $0.contains("sqlite") }
        #expect(stray.isEmpty, "the device touched no local database: \(stray)")
        #expect(await server.stop() == 0)
    }

    @Test("An unknown outcome's next step reads the intent on the server, not 'paypanel reconcile'")
    func anUnknownOutcomePointsAtTheServer() async throws {
        let server = try await CheckoutServer.start(testRoot: true)
        defer { server.kill() }
        // Card 9 never answers: with the server's --now the wait is virtual.
        let result = try await server.checkout(["expand", "buy", "card 9", "confirm", "done"])
        let events = try LineCheckoutHarness.events(result)
        let unknown = try #require(events.first { $0["event"] == "outcome_unknown" }, "\(result.stdout)")
        let intentID = try #require(unknown["intentId"]?.stringValue)
        #expect(unknown["next"]?.stringValue == "GET \(server.url)/v1/payment_intents/\(intentID) once the server has reconciled it", "\(unknown)")
        #expect(await server.stop() == 0)
    }
}

/// A `paypanel serve` of one test: port 0, its databases in a directory of its own, stopped
/// by its pid. The device runs in another directory, so a stray local database would show.
final class CheckoutServer: Sendable {
    static let now = "2026-12-01T10:00:00Z"

    let process: ListeningProcess
    let directory: TemporaryDirectory
    let deviceDirectory: TemporaryDirectory
    let apiKey: String

    var url: String { "http://127.0.0.1:\(process.port)" }

    private init(process: ListeningProcess, directory: TemporaryDirectory, deviceDirectory: TemporaryDirectory, apiKey: String) {
        self.process = process
        self.directory = directory
        self.deviceDirectory = deviceDirectory
        self.apiKey = apiKey
    }

    static func start(testRoot: Bool) async throws -> CheckoutServer {
        let directory = try TemporaryDirectory("checkout-server")
        let process = try await ListeningProcess.paypanel(
            ["serve", "--port", "0", "--db", directory.file("payments.sqlite"), "--processor-db", directory.file("processor.sqlite"),
             "--now", now] + (testRoot ? ["--test-root"] : []),
            name: "serve", directory: directory)
        // The first start prints the merchant's key on standard error, next to the listening line.
        let deadline = Date().addingTimeInterval(30)
        var key: String?
        while key == nil {
            key = process.stderr.range(of: #"sk_[A-Za-z0-9]+"#, options: .regularExpression).map { String(process.stderr[$0]) }
            guard key == nil else { break }
            guard Date() < deadline, process.isRunning else {
                process.crash()
                throw CheckoutTestTimeout(description: "serve printed no API key: \(process.stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return CheckoutServer(process: process, directory: directory, deviceDirectory: try TemporaryDirectory("checkout-device"), apiKey: key!)
    }

    /// `paypanel checkout --server URL` fed `script`, with the key in the environment.
    func checkout(_ script: [String], options: [String] = [], json: Bool = true) async throws -> CLIResult {
        let arguments = ["checkout", "--server", url, "--now", Self.now] + (json ? ["--json"] : ["--lines"]) + options
        let input = script.joined(separator: "\n") + "\n"
        let (directory, key) = (deviceDirectory, apiKey)
        return try await onThread {
            try CLIRunner.run(arguments, stdin: input, in: directory, environment: ["PAYPANEL_API_KEY": key], timeout: 120)
        }
    }

    /// The merchant's `GET path`, parsed.
    func get(_ path: String) throws -> JSONValue { try call("GET", path) }

    /// The merchant's `POST path` with an empty JSON body, parsed.
    func post(_ path: String) throws -> JSONValue { try call("POST", path, body: "{}") }

    private func call(_ method: String, _ path: String, body: String? = nil) throws -> JSONValue {
        let client = try RawClient.connect(to: process.port)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(apiKey)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        try client.send(request + "\r\n" + (body ?? ""))
        let response = try client.readResponse()
        return try JSONParser().parse(response.text)
    }

    /// SIGTERM, then its exit status.
    func stop() async -> Int32 { await process.stopGracefully(within: 30) }

    /// Ends it if the test did not (a failed expectation), by its own pid.
    func kill() {
        if process.isRunning { process.crash() }
    }
}
