import Foundation
import PayPanelReliability
import PayPanel
import PayPanelHTTP
import PayPanelServer
import Testing
import TestSupport

/// Shutdown, the worker, the access log, the OpenAPI document.
@Suite struct LifecycleTests {
    @Test func sigtermLetsTheRequestInFlightFinishThenExitsZero() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent()
        async let slow = server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242", holder: "SLOW_5S"))
        try await server.waitUntilMoved(from: "requires_payment_method", id)
        let status = await server.terminate()
        let response = try await slow
        #expect(response.status == 200, "\(response.text)")
        #expect(response["status"] == "succeeded")
        #expect(status == 0, "\(server.stderr)")
    }

    @Test func theWorkerFiresADueAuthorizationExpiryUnderVirtualTime() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let first = try await ServerProcess.start(directory: directory, arguments: ["--now", "2026-11-01T10:00:00Z"])
        let id = try await first.createIntent(capture: "manual")
        let confirmed = try await first.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(confirmed["status"] == "requires_capture")
        #expect(await first.terminate() == 0)

        // Thirty days later the authorization has expired: the worker acts without any request.
        let later = try await ServerProcess.start(directory: directory, arguments: ["--now", "2026-12-01T10:00:00Z"], key: first.key)
        var status = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            status = try await later.request("GET", "/v1/payment_intents/\(id)")["status"]?.stringValue ?? ""
            if status != "requires_capture" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(status != "requires_capture")
        #expect(["canceled", "expired"].contains(status), "\(status)")
        #expect(await later.terminate() == 0)
        #expect(later.stderr.contains(#""worker":"reconcile""#))
    }

    @Test func theAccessLogHasOneJSONLinePerRequestAndNoCardData() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent()
        _ = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        _ = try await server.request("GET", "/v1/payment_intents?limit=3&status=succeeded")
        #expect(await server.terminate() == 0)
        let lines = server.stderr.split(separator: "\n").filter { $0.contains(#""request_id""#) }
        // The test client's one read of /openapi.json, to check the responses against it, and the three requests.
        #expect(lines.count == 4)
        #expect(lines.filter { $0.contains(#""path":"/openapi.json""#) }.count == 1)
        for line in lines {
            let entry = try JSONParser().parse(String(line))
            #expect(entry["status"]?.int64Value != nil)
            #expect(entry["method"]?.stringValue != nil)
            #expect(entry["duration_ms"] != nil)
        }
        #expect(lines.contains { $0.contains(#""path":"/v1/payment_intents""#) && $0.contains(#""method":"GET""#) })
        #expect(!server.stderr.contains("4242424242424242"))
        #expect(!server.stderr.contains("limit=3"))
        #expect(server.stderr.components(separatedBy: server.key).count == 2, "the key is printed once, at creation")
        #expect(server.stdout.hasPrefix("listening on http://127.0.0.1:"))
    }

    @Test func everyRouteIsInTheOpenAPIDocument() async throws {
        let directory = try TemporaryDirectory("paypanel-openapi")
        let path = directory.file("payments.sqlite")
        let service = PaymentService(store: try SQLitePaymentStore(path: path, clock: SystemClock()), processor: UnusedProcessor())
        let router = try PaymentsAPI(service: service, databasePath: path, clock: SystemClock()).router()
        let response = await router.respond(to: try HTTPRequest(method: .get, target: "/openapi.json"))
        let document = try JSONParser().parse(response.body)
        #expect(document["openapi"] == "3.1.0")
        #expect(router.routes.count >= 12)
        for route in router.routes {
            let item = document["paths"]?[route.pattern.text]
            #expect(item?[route.method.rawValue.lowercased()] != nil, "\(route) is not in /openapi.json")
        }
    }
}

/// The OpenAPI test serves no payment.
struct UnusedProcessor: PaymentProcessor {
    func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: "unused") }
    func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: "unused") }
    func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: "unused") }
    func void(reference: String, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: "unused") }
    func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: "unused") }
    func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult { .unavailable(reason: "unused") }
}

/// `serve --json` and the key-shape check of `Idempotency-Key`.
@Suite struct ServeOutputTests {
    @Test func jsonPrintsOneObjectWithThePort() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let server = try await ListeningProcess.paypanel(
            ["serve", "--port", "0", "--json", "--db", directory.file("p.sqlite"), "--processor-db", directory.file("q.sqlite")],
            name: "serve", directory: directory)
        let line = try #require(server.stdout.split(separator: "\n").first)
        let value = try JSONParser().parse(String(line))
        #expect(value["listening"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
        #expect((value["port"]?.int64Value ?? 0) > 0)
        #expect(Int(value["port"]?.int64Value ?? 0) == server.port)
        #expect(await server.stopGracefully(within: 20) == 0)
    }

    /// A key is never refused for its digits; one that holds a card number is kept as its
    /// digest, so the number is in no response and nowhere in the database's files.
    @Test func aKeyThatLooksLikeACardNumberIsAcceptedReplayedAndNeverStored() async throws {
        let server = try await ServerProcess.start()
        let body = #"{"amount":100,"currency":"USD"}"#
        let first = try await server.request("POST", "/v1/payment_intents", json: body, headers: ["Idempotency-Key": "4242424242424242"])
        let retry = try await server.request("POST", "/v1/payment_intents", json: body, headers: ["Idempotency-Key": "4242424242424242"])
        #expect(first.status == 200 && retry.status == 200, "\(first.text)")
        #expect(retry.headers["Idempotent-Replayed"] == "true" && retry.id == first.id)
        #expect(!first.text.contains("4242424242424242") && !server.stderr.contains("4242424242424242"))
        #expect(await server.terminate() == 0)
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: server.databasePath + suffix))) ?? Data()
            #expect(bytes.range(of: Data("4242424242424242".utf8)) == nil, "the key is in payments.sqlite\(suffix)")
        }
    }
}
