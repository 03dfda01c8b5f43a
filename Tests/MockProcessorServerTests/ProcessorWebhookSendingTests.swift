import Foundation
import PayPanel
import PayPanelHTTP
import Synchronization
import Testing
import TestSupport

/// A receiver for the mock's webhooks on 127.0.0.1 (port 0): it keeps every request and
/// answers with the status it is told to (changeable during a test).
final class WebhookCatcher: Sendable {
    struct Caught: Sendable {
        let path: String
        let signature: String?
        let body: [UInt8]
        var json: JSONValue { (try? JSONParser().parse(body)) ?? .null }
    }

    /// What the server's handler and the test share.
    final class State: Sendable {
        let value: Mutex<(caught: [Caught], status: Int)>
        init(status: Int) { value = Mutex(([], status)) }
    }

    let server: HTTPServer
    private let shared: State

    init(status: Int = 200) throws {
        let shared = State(status: status)
        self.shared = shared
        server = try HTTPServer.start(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0)) { request in
            let answer = shared.value.withLock { value -> Int in
                value.caught.append(Caught(path: request.target.path, signature: request.headers["Stripe-Signature"], body: request.body))
                return value.status
            }
            return HTTPResponse.json(Array(#"{"ok":true}"#.utf8), status: HTTPStatus(code: answer))
        }
    }

    var url: String { "http://127.0.0.1:\(server.port)/hook" }
    var caught: [Caught] { shared.value.withLock { $0.caught } }

    func answer(_ status: Int) {
        shared.value.withLock { $0.status = status }
    }

    /// Waits (bounded, for a loaded machine) until `count` requests came.
    func waitFor(_ count: Int, seconds: TimeInterval = 60) async throws -> [Caught] {
        let deadline = Date().addingTimeInterval(seconds)
        while caught.count < count, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return caught
    }

    func stop() async {
        await server.shutdown(grace: .seconds(1))
    }
}

/// `paypanel processor serve` sends Stripe-style webhooks (docs/mock-processor.md, "Webhooks"):
/// endpoints per key, events for what it decides late, signed, retried on the test clock, and
/// durable across a restart.
@Suite("processor serve sends webhooks")
struct ProcessorWebhookSendingTests {
    /// The processor's clock (`ServedProcess.processor` starts it with `--now` there).
    static let start = Date(timeIntervalSince1970: 1_796_119_200)  // 2026-12-01T10:00:00Z

    static func register(_ client: StripeTestClient, url: String, events: [String] = ["*"]) async throws -> (id: String, secret: String) {
        let created = try await client.call("POST", "/v1/webhook_endpoints", [("url", url)] + events.map { ("enabled_events[]", $0) })
        #expect(created.status == 200, "\(created.text)")
        return (created.id, created["secret"]?.stringValue ?? "")
    }

    /// The account's deliveries, once `ready` holds for them (bounded: the sender records an
    /// attempt a moment after the receiver has it).
    static func deliveries(_ client: StripeTestClient, until ready: ([JSONValue]) -> Bool = { _ in true }) async throws -> [JSONValue] {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let rows = try await client.call("GET", "/_mock/webhook_deliveries")["data"]?.arrayValue ?? []
            if ready(rows) || Date() > deadline { return rows }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The webhook sender's finished passes (`sender_passes` beside the deliveries).
    static func senderPasses(_ client: StripeTestClient) async throws -> Int {
        let listed = try await client.call("GET", "/_mock/webhook_deliveries")
        guard let passes = listed["sender_passes"]?.int64Value else {
            throw ProcessorServeError(description: "no sender_passes in /_mock/webhook_deliveries: \(listed.text)")
        }
        return Int(passes)
    }

    /// Returns once the sender has finished `count` more passes than when called: what a test
    /// waits for before asserting that nothing more was sent.
    static func waitForSenderPasses(_ client: StripeTestClient, _ count: Int) async throws {
        try await LoopPasses.waitFor(count, of: "the webhook sender") { try await senderPasses(client) }
    }

    @Test("Endpoints: created with a whsec_ secret shown once, listed and retrieved without it, deleted; other keys see none; bad input is a 400")
    func endpointLifecycle() async throws {
        let directory = try TemporaryDirectory("procwebhooks")
        let processor = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: processor.port, key: "sk_test_endpoints")
        let created = try await client.call(
            "POST", "/v1/webhook_endpoints",
            [("url", "http://127.0.0.1:9/hook"), ("enabled_events[]", "payment_intent.succeeded"), ("enabled_events[]", "refund.updated")])
        #expect(created.status == 200, "\(created.text)")
        #expect(created["object"]?.stringValue == "webhook_endpoint")
        #expect(created.id.hasPrefix("we_"))
        #expect(created["secret"]?.stringValue?.hasPrefix("whsec_") == true)
        #expect(created["enabled_events"]?.arrayValue?.compactMap(\.stringValue) == ["payment_intent.succeeded", "refund.updated"])
        #expect(created["status"]?.stringValue == "enabled")

        let listed = try await client.call("GET", "/v1/webhook_endpoints")
        #expect(listed["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [created.id])
        #expect(!listed.text.contains("whsec_"), "the secret is shown only at creation")
        let one = try await client.call("GET", "/v1/webhook_endpoints/\(created.id)")
        #expect(one.id == created.id && one["secret"] == nil)
        let other = StripeTestClient(port: processor.port, key: "sk_test_someone_else")
        #expect(try await other.call("GET", "/v1/webhook_endpoints/\(created.id)").status == 404)
        #expect(try await other.call("GET", "/v1/webhook_endpoints")["data"]?.arrayValue?.isEmpty == true)

        #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", "http://127.0.0.1:9/hook")]).status == 400, "enabled_events is required")
        #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", "ftp://x/"), ("enabled_events[]", "*")]).status == 400)
        #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", "https://[AecD:03]/"), ("enabled_events[]", "*")]).status == 400,
                "a bracketed host that is not an IPv6 address (SDKs' URL parsers raise on it)")
        #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", "http://x/"), ("enabled_events[]", "Bad Type")]).status == 400)

        let long = "http://127.0.0.1:9/" + String(repeating: "a", count: 2048)
        #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", long), ("enabled_events[]", "*")]).status == 400, "URLs of at most 2048 bytes")
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let tooMany = (0...100).map { ("enabled_events[]", "type.\(letters[$0 / 26])\(letters[$0 % 26])") }
        #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", "http://x/")] + tooMany).status == 400, "at most 100 event types")

        // Sixteen endpoints per account, as at Stripe: the 17th is refused with what to do.
        for index in 1..<16 {
            #expect(try await client.call("POST", "/v1/webhook_endpoints", [("url", "http://127.0.0.1:9/\(index)"), ("enabled_events[]", "*")]).status == 200)
        }
        let seventeenth = try await client.call("POST", "/v1/webhook_endpoints", [("url", "http://127.0.0.1:9/17"), ("enabled_events[]", "*")])
        #expect(seventeenth.status == 400 && seventeenth.text.contains("delete one"), "\(seventeenth.text)")

        let deleted = try await client.call("DELETE", "/v1/webhook_endpoints/\(created.id)")
        #expect(deleted["deleted"] == .bool(true), "\(deleted.text)")
        #expect(try await client.call("GET", "/v1/webhook_endpoints/\(created.id)").status == 404)
        #expect(try await client.call("DELETE", "/v1/webhook_endpoints/\(created.id)").status == 404)
        #expect(await processor.terminate() == 0)
    }

    @Test("An authorization answered too late, a capture that failed late and a refund that settled each come as a correctly signed Stripe event")
    func threeLateDecisionsAreSigned() async throws {
        let directory = try TemporaryDirectory("procwebhooks")
        let catcher = try WebhookCatcher()
        let processor = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: processor.port, key: "sk_test_late_decisions")
        let endpoint = try await Self.register(client, url: catcher.url)

        // 1. TIMEOUT_THEN_APPROVED: approved, the answer lost (the connection is held).
        let held = try await client.pay(holder: "TIMEOUT_THEN_APPROVED", metadata: ["attempt_id": "att_late1"], timeout: 3)
        #expect(held.reply == nil, "no answer: \(held)")
        // 2. CAPTURE_FAIL_LATE: the capture is declined and its answer lost.
        let authorized = try #require(try await client.pay(holder: "CAPTURE_FAIL_LATE").reply)
        #expect(authorized.status_ == "requires_capture", "\(authorized.text)")
        let capture = try await client.send("POST", "/v1/payment_intents/\(authorized.id)/capture", timeout: 3)
        #expect(capture.reply == nil, "no answer: \(capture)")
        // 3. REFUND_ASYNC: the refund answers pending and settles 60 s later on the test clock.
        let paid = try #require(try await client.pay(holder: "REFUND_ASYNC", capture: "automatic").reply)
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "400")])
        #expect(refund.status_ == "pending", "\(refund.text)")

        _ = try await catcher.waitFor(2)
        // Two more passes of the sender (the second begun after both events came) found the
        // refund's event not due: it is sent only once the refund settles.
        try await Self.waitForSenderPasses(client, 2)
        let early = catcher.caught
        #expect(early.count == 2, "the refund's event is not due before it settles: \(early.map(\.json))")
        #expect(try await client.call("POST", "/_mock/clock/advance", [("seconds", "60")]).status == 200)
        let caught = try await catcher.waitFor(3)
        try #require(caught.count == 3, "\(caught.map(\.json))")

        var types: [String: JSONValue] = [:]
        for request in caught {
            #expect(request.path == "/hook")
            let event = request.json
            #expect(event["object"]?.stringValue == "event")
            #expect(event["id"]?.stringValue?.hasPrefix("evt_") == true)
            // Signed over "t.body" with the endpoint's secret, on the processor's (test) clock.
            let signedAt = try StripeWebhookSignature.verify(
                header: request.signature, body: request.body, secret: endpoint.secret, now: Self.start.addingTimeInterval(60))
            #expect(signedAt >= Int64(Self.start.timeIntervalSince1970))
            #expect(throws: WebhookSignatureError.self) {
                try StripeWebhookSignature.verify(header: request.signature, body: request.body, secret: "whsec_not_the_secret_at_all", now: Self.start)
            }
            types[event["type"]?.stringValue ?? ""] = event["data"]?["object"]
        }
        let approved = try #require(types["payment_intent.amount_capturable_updated"], "\(types.keys)")
        #expect(approved["status"]?.stringValue == "requires_capture")
        #expect(approved["metadata"]?["attempt_id"]?.stringValue == "att_late1")
        let failed = try #require(types["payment_intent.payment_failed"], "\(types.keys)")
        #expect(failed["id"]?.stringValue == authorized.id)
        #expect(failed["last_payment_error"]?["decline_code"]?.stringValue == "capture_failed")
        let settled = try #require(types["refund.updated"], "\(types.keys)")
        #expect(settled["id"]?.stringValue == refund.id && settled["status"]?.stringValue == "succeeded")
        #expect(!caught.contains { String(decoding: $0.body, as: UTF8.self).contains("4242424242424242") }, "never a card number")

        let states = try await Self.deliveries(client) { rows in rows.count == 3 && rows.allSatisfy { $0["status"]?.stringValue == "delivered" } }
        #expect(states.count == 3 && states.allSatisfy { $0["status"]?.stringValue == "delivered" }, "\(states)")
        await catcher.stop()
        #expect(await processor.terminate() == 0)
    }

    @Test("A refused delivery is retried on the test clock, and one not delivered before a crash is sent again by the next process")
    func retriesAndRestart() async throws {
        let directory = try TemporaryDirectory("procwebhooks")
        let catcher = try WebhookCatcher(status: 500)
        var processor = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: processor.port, key: "sk_test_retries")
        let endpoint = try await Self.register(client, url: catcher.url, events: ["payment_intent.amount_capturable_updated"])

        _ = try await client.pay(holder: "TIMEOUT_THEN_APPROVED", timeout: 3)
        let first = try await catcher.waitFor(1)
        try #require(first.count == 1)
        var states = try await Self.deliveries(client) { $0.first?["attempts"]?.int64Value == 1 }
        #expect(states.first?["status"]?.stringValue == "pending" && states.first?["attempts"]?.int64Value == 1, "\(states)")
        #expect(states.first?["last_status"]?.int64Value == 500)
        #expect(states.first?["next_attempt_at"]?.int64Value == Int64(Self.start.timeIntervalSince1970) + 5, "the first retry is 5 s later")

        // Not before its time: the retry is due 5 s later on the test clock, which stands still
        // here. Two more passes of the sender (the second begun after the first attempt was
        // recorded) found nothing due, and nothing more was sent.
        try await Self.waitForSenderPasses(client, 2)
        #expect(catcher.caught.count == 1)
        states = try await Self.deliveries(client)
        #expect(states.first?["attempts"]?.int64Value == 1 && states.first?["status"]?.stringValue == "pending", "\(states)")

        // A crash before the retry; the next process finds the delivery in the ledger file.
        await processor.crash()
        catcher.answer(200)
        processor = try await ServedProcess.processor(directory: directory)
        let restarted = StripeTestClient(port: processor.port, key: "sk_test_retries")
        #expect(try await restarted.call("POST", "/_mock/clock/advance", [("seconds", "5")]).status == 200)
        let again = try await catcher.waitFor(2)
        try #require(again.count == 2)
        #expect(again[0].json["id"] == again[1].json["id"], "the same event, so a receiver dedupes it by id")
        _ = try StripeWebhookSignature.verify(header: again[1].signature, body: again[1].body, secret: endpoint.secret, now: Self.start.addingTimeInterval(5))
        states = try await Self.deliveries(restarted) { $0.first?["status"]?.stringValue == "delivered" }
        #expect(states.first?["status"]?.stringValue == "delivered" && states.first?["attempts"]?.int64Value == 2, "\(states)")
        await catcher.stop()
        #expect(await processor.terminate() == 0)
    }
}
