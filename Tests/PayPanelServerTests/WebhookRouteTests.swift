import Foundation
import PayPanel
import Testing
import TestSupport

/// Events and webhooks over the wire: `serve` (port 0, --allow-private-webhooks) delivering
/// signed events to `webhooks listen` (port 0), the endpoint routes (the secret shown once),
/// `/v1/events` paging and filtering, and the processor's webhooks refused when forged or
/// stale and acknowledged when well signed.
@Suite struct WebhookRouteTests {
    static let processorSecret = "whsec_processor_test_secret_42"

    @Test func serveDeliversSignedEventsToTheLocalListener() async throws {
        let directory = try TemporaryDirectory("paypanel-webhooks-e2e")
        let secretFile = directory.file("endpoint.secret")
        let listener = try await ListenerProcess.start(directory: directory, arguments: ["--secret-file", secretFile])
        let server = try await ServerProcess.start(directory: directory, arguments: ["--allow-private-webhooks"])

        let created = try await server.request(
            "POST", "/v1/webhook_endpoints",
            json: #"{"url":"http://127.0.0.1:\#(listener.port)/hooks","events":["payment_intent.succeeded","refund.succeeded"]}"#)
        #expect(created.status == 200, "\(created.text)")
        #expect(created["object"] == "webhook_endpoint" && created["status"] == "enabled")
        let secret = try #require(created["secret"]?.stringValue)
        #expect(secret.hasPrefix("whsec_"))
        try Data(secret.utf8).write(to: URL(fileURLWithPath: secretFile))
        // The secret is never shown again.
        #expect(try await server.request("GET", "/v1/webhook_endpoints/\(created.id)")["secret"] == nil)
        #expect(try await server.request("GET", "/v1/webhook_endpoints").text.contains(secret) == false)

        let intent = try await server.createIntent()
        let paid = try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(paid["status"] == "succeeded", "\(paid.text)")
        try await listener.waitFor("payment_intent.succeeded  \(intent) succeeded")
        #expect(listener.stdout.contains("→ 200"))
        #expect(!listener.stdout.contains("payment_intent.created"), "the endpoint asked for two types only")

        let events = try await server.request("GET", "/v1/events?type=payment_intent.succeeded")
        let event = try #require(events["data"]?.arrayValue?.first)
        #expect(event["data"]?["object"]?["id"]?.stringValue == intent)
        let eventID = try #require(event["id"]?.stringValue)
        #expect(listener.stdout.contains(eventID), "the webhook-id is the event id")
        #expect(try await server.request("GET", "/v1/events/\(eventID)")["type"] == "payment_intent.succeeded")

        #expect(try await server.request("DELETE", "/v1/webhook_endpoints/\(created.id)")["deleted"] == true)
        #expect(try await server.request("GET", "/v1/webhook_endpoints/\(created.id)").status == 404)
        #expect(await server.terminate() == 0)
        #expect(await listener.terminate() == 0)
        #expect(!server.stderr.contains(secret) && !server.stderr.contains("4242424242424242"))
        #expect(!server.stderr.contains(String(secret.dropFirst(6))))
    }

    @Test func theEventsListPagesNewestFirstAndRefusesBadQueries() async throws {
        let server = try await ServerProcess.start()
        var intents: [String] = []
        for _ in 0..<3 { intents.append(try await server.createIntent()) }
        let first = try await server.request("GET", "/v1/events?limit=2")
        #expect(first["object"] == "list" && first["has_more"] == true, "\(first.text)")
        let page = try #require(first["data"]?.arrayValue)
        #expect(page.compactMap { $0["data"]?["object"]?["id"]?.stringValue } == [intents[2], intents[1]])
        let last = try #require(page.last?["id"]?.stringValue)
        let next = try await server.request("GET", "/v1/events?limit=2&starting_after=\(last)")
        #expect(next["data"]?.arrayValue?.compactMap { $0["data"]?["object"]?["id"]?.stringValue } == [intents[0]])
        #expect(next["has_more"] == false)
        #expect(try await server.request("GET", "/v1/events?type=nope").errorCode == "parameter_invalid")
        #expect(try await server.request("GET", "/v1/events?colour=red").errorCode == "parameter_unknown")
        #expect(try await server.request("GET", "/v1/events/evt_missing").status == 404)
        #expect(try await server.request("GET", "/v1/events", key: "").status == 401)
        let badURL = try await server.request("POST", "/v1/webhook_endpoints", json: #"{"url":"ftp://x.example/"}"#)
        #expect(badURL.status == 400 && badURL.errorCode == "invalid_url", "\(badURL.text)")
        let badType = try await server.request("POST", "/v1/webhook_endpoints", json: #"{"url":"https://x.example/","events":["nope"]}"#)
        #expect(badType.status == 400 && badType.errorCode == "invalid_event_type")
        // Hosts that can never be reached and ports outside 1...65535 (URLComponents lets both
        // through): refused, as the schema's pattern says.
        for url in ["https://ex_ample.com/", "https://ex%41mple.com/", "https://example.com:0/", "https://example.com:70000/", "https://[AecD:03]/"] {
            let refused = try await server.request("POST", "/v1/webhook_endpoints", json: #"{"url":"\#(url)"}"#)
            #expect(refused.status == 400 && refused.errorCode == "invalid_url", "\(url): \(refused.text)")
        }
        let twice = try await server.request("POST", "/v1/webhook_endpoints",
                                             json: #"{"url":"https://x.example/","events":["payment_intent.succeeded","payment_intent.succeeded"]}"#)
        #expect(twice.status == 400 && twice.text.contains("twice"), "\(twice.text)")
        #expect(await server.terminate() == 0)
    }

    static func signed(_ body: String, at time: Date = Date(), secret: String = processorSecret) -> [String: String] {
        ["Stripe-Signature": StripeWebhookSignature.header(timestamp: Int64(time.timeIntervalSince1970), body: Array(body.utf8), secret: secret),
         "Content-Type": "application/json"]
    }

    @Test func processorWebhooksAreRefusedWhenForgedOrStaleAndAcknowledgedWhenWellSigned() async throws {
        let server = try await ServerProcess.start(arguments: ["--processor-webhook-secret", Self.processorSecret])
        let body = """
            {"id":"evt_proc_http_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent",\
            "id":"pi_proc_1","amount":1000,"amount_received":1000,"currency":"usd","status":"succeeded",\
            "metadata":{"attempt_id":"att_ZZZZZZZZZZZZZZZZZZZZZZZZ"}}}}
            """
        let bytes = Array(body.utf8)
        // No API key needed, and one does not help: the signature is the authentication.
        let forged = try await server.request("POST", "/v1/processor/webhooks", body: bytes, key: "",
                                              headers: Self.signed(body, secret: "whsec_someone_else_entirely"))
        #expect(forged.status == 400 && forged.errorCode == "signature_mismatch", "\(forged.text)")
        let stale = try await server.request("POST", "/v1/processor/webhooks", body: bytes, key: "",
                                             headers: Self.signed(body, at: Date().addingTimeInterval(-600)))
        #expect(stale.status == 400 && stale.errorCode == "timestamp_outside_tolerance")
        let unsigned = try await server.request("POST", "/v1/processor/webhooks", body: bytes, key: "", headers: ["Content-Type": "application/json"])
        #expect(unsigned.status == 400 && unsigned.errorCode == "missing_signature_header")
        let tampered = try await server.request("POST", "/v1/processor/webhooks", body: Array(body.replacingOccurrences(of: "1000", with: "9000").utf8),
                                                key: "", headers: Self.signed(body))
        #expect(tampered.status == 400)

        // Refused ones changed nothing: the first well-signed delivery is new, the next a duplicate.
        let accepted = try await server.request("POST", "/v1/processor/webhooks", body: bytes, key: "", headers: Self.signed(body))
        #expect(accepted.status == 200 && accepted["disposition"] == "ignored", "\(accepted.text)")
        let again = try await server.request("POST", "/v1/processor/webhooks", body: bytes, key: "", headers: Self.signed(body))
        #expect(again.status == 200 && again["disposition"] == "duplicate")
        // About one of PayPanel's attempts but without what that needs: malformed, refused.
        let unreadable = #"{"id":"evt_2","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent","metadata":{"attempt_id":"att_ZZZZZZZZZZZZZZZZZZZZZZZZ"}}}}"#
        let bad = try await server.request("POST", "/v1/processor/webhooks", body: Array(unreadable.utf8), key: "", headers: Self.signed(unreadable))
        #expect(bad.status == 400 && bad.errorCode == "invalid_processor_event")
        for garbage in ["not json", #"{"id":"evt_3","type":"payment_intent.succeeded"}"#] {
            let refused = try await server.request("POST", "/v1/processor/webhooks", body: Array(garbage.utf8), key: "", headers: Self.signed(garbage))
            #expect(refused.status == 400 && refused.errorCode == "invalid_processor_event", "\(refused.text)")
        }
        #expect(await server.terminate() == 0)
    }

    /// Another integration on the same processor account: its intents and refunds carry no
    /// PayPanel id. Well signed, their events are answered 2xx and recorded as ignored, so the
    /// processor stops delivering them; unsigned or stale, they are refused like any other.
    @Test func aWellSignedEventAboutAnObjectPayPanelDidNotCreateIsAcknowledgedAndRecorded() async throws {
        let server = try await ServerProcess.start(arguments: ["--processor-webhook-secret", Self.processorSecret])
        let foreign = [
            #"{"id":"evt_foreign_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent","id":"pi_other","amount":500,"currency":"usd","status":"succeeded","metadata":{"order":"42"}}}}"#,
            #"{"id":"evt_foreign_2","object":"event","type":"charge.refunded","data":{"object":{"object":"charge","id":"ch_other","refunds":{"data":[{"object":"refund","id":"re_other","amount":500,"currency":"usd","status":"succeeded"}]}}}}"#,
            #"{"id":"evt_foreign_3","object":"event","type":"refund.created","data":{"object":{"object":"refund","id":"re_other2","status":"pending"}}}"#,
        ]
        for body in foreign {
            let unsigned = try await server.request("POST", "/v1/processor/webhooks", body: Array(body.utf8), key: "", headers: ["Content-Type": "application/json"])
            #expect(unsigned.status == 400 && unsigned.errorCode == "missing_signature_header")
            let stale = try await server.request("POST", "/v1/processor/webhooks", body: Array(body.utf8), key: "",
                                                 headers: Self.signed(body, at: Date().addingTimeInterval(-600)))
            #expect(stale.status == 400 && stale.errorCode == "timestamp_outside_tolerance")
            let accepted = try await server.request("POST", "/v1/processor/webhooks", body: Array(body.utf8), key: "", headers: Self.signed(body))
            #expect(accepted.status == 200 && accepted["disposition"] == "ignored", "\(accepted.text)")
            #expect(accepted.json["reason"]?.stringValue?.contains("one of PayPanel's") == true, "\(accepted.text)")
            let again = try await server.request("POST", "/v1/processor/webhooks", body: Array(body.utf8), key: "", headers: Self.signed(body))
            #expect(again.status == 200 && again["disposition"] == "duplicate", "recorded the first time: \(again.text)")
        }
        #expect(await server.terminate() == 0)
    }

    @Test func withoutASecretTheProcessorRouteSaysHowToConfigureIt() async throws {
        let server = try await ServerProcess.start()
        let response = try await server.request("POST", "/v1/processor/webhooks", json: "{}", key: "")
        #expect(response.status == 503 && response.errorCode == "processor_webhooks_not_configured")
        #expect(await server.terminate() == 0)
    }
}
