import Foundation
import Glibc
import PayPanel
import PayPanelReliability
import Testing
import TestSupport

/// The routes behind the device simulator and the operator console, over a real
/// `paypanel serve` on port 0: the device's 3-D Secure answer with the client secret, the
/// processor's ledger rows of an intent (the in-process mock's file, and an HTTP processor's
/// admin endpoint), and the webhook deliveries of an intent's events; each in /openapi.json.
@Suite struct ConsoleRouteTests {
    static let challengeCard = "4000002760003184"

    /// A checkout paid with the 3-D Secure test card: /pay answered authentication_required.
    func checkoutWaitingForChallenge(_ server: ServerProcess) async throws -> (id: String, secret: String, intent: String) {
        let created = try await server.request("POST", "/v1/checkouts", json: "{}")
        #expect(created.status == 200, "\(created.text)")
        let secret = try #require(created["client_secret"]?.stringValue)
        let paid = try await server.request(
            "POST", "/v1/checkouts/\(created.id)/pay",
            json: #"{"amount":1000,"card":{"number":"\#(Self.challengeCard)","exp_month":12,"exp_year":2030}}"#, key: secret)
        #expect(paid.status == 200 && paid["sheet"] == "failure", "\(paid.text)")
        #expect(paid["error"]?["code"] == "authentication_required", "\(paid.text)")
        let intent = try #require(paid["payment_intent"]?.stringValue)
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)")["status"] == "requires_action")
        return (created.id, secret, intent)
    }

    /// On a virtual clock: the sheet's 25 s deadline must not pass in real time between the pay
    /// call and the challenge's answer (it did once, in the AddressSanitizer pass of a
    /// clean-clone run on a loaded machine, and the answer was the sheet's failure).
    static let virtualTime = ["--now", "2026-12-01T10:00:00Z"]

    @Test func theDeviceAnswersThreeDSecureWithTheClientSecretOnly() async throws {
        let server = try await ServerProcess.start(arguments: Self.virtualTime)
        let checkout = try await checkoutWaitingForChallenge(server)
        let other = try await server.request("POST", "/v1/checkouts", json: "{}")
        let otherSecret = try #require(other["client_secret"]?.stringValue)
        let path = "/v1/checkouts/\(checkout.id)/challenge"

        // Another checkout's secret, the merchant's secret key, no key: refused, nothing changed.
        for key in [otherSecret, server.key, ""] {
            let refused = try await server.request("POST", path, json: #"{"passed":true}"#, key: key)
            #expect(refused.status == 401 && refused.errorCode == "invalid_client_secret", "\(refused.text)")
        }
        // A body that is not exactly {"passed": bool}.
        for body in ["{}", #"{"passed":"yes"}"#, #"{"passed":true,"amount":1}"#, "[]"] {
            let bad = try await server.request("POST", path, json: body, key: checkout.secret)
            #expect(bad.status == 400, "\(body): \(bad.text)")
        }
        #expect(try await server.request("GET", "/v1/payment_intents/\(checkout.intent)")["status"] == "requires_action")

        let passed = try await server.request("POST", path, json: #"{"passed":true}"#, key: checkout.secret, headers: ["Idempotency-Key": "tap-pass-one"])
        #expect(passed.status == 200 && passed["sheet"] == "success" && passed["status"] == "paid", "\(passed.text)")
        #expect(passed["payment_intent"]?.stringValue == checkout.intent)
        #expect(try await server.request("GET", "/v1/payment_intents/\(checkout.intent)")["status"] == "succeeded")
        // The same tap again replays its answer; a new tap finds the checkout paid.
        let replayed = try await server.request("POST", path, json: #"{"passed":true}"#, key: checkout.secret, headers: ["Idempotency-Key": "tap-pass-one"])
        #expect(replayed.status == 200 && replayed["sheet"] == "success", "\(replayed.text)")
        let again = try await server.request("POST", path, json: #"{"passed":true}"#, key: checkout.secret)
        #expect(again.status == 409 && again.errorCode == "checkout_not_open", "\(again.text)")
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains(checkout.secret) && !server.stderr.contains(Self.challengeCard))
    }

    @Test func aFailedChallengeIsADeclineAndTheCheckoutStaysOpen() async throws {
        let server = try await ServerProcess.start(arguments: Self.virtualTime)
        let checkout = try await checkoutWaitingForChallenge(server)
        let path = "/v1/checkouts/\(checkout.id)/challenge"
        let failed = try await server.request("POST", path, json: #"{"passed":false}"#, key: checkout.secret)
        #expect(failed.status == 200 && failed["sheet"] == "failure" && failed["status"] == "open", "\(failed.text)")
        #expect(failed["error"]?["code"] == "payment_intent_authentication_failure", "\(failed.text)")
        #expect(try await server.request("GET", "/v1/payment_intents/\(checkout.intent)")["status"] == "requires_payment_method")
        // Nothing waits for a challenge now.
        let none = try await server.request("POST", path, json: #"{"passed":true}"#, key: checkout.secret)
        #expect(none.status == 409 && none.errorCode == "no_challenge_pending", "\(none.text)")
        // Another card pays the same checkout.
        let paid = try await server.request(
            "POST", "/v1/checkouts/\(checkout.id)/pay", json: #"{"amount":1000,"card":{"number":"4242424242424242","exp_month":12,"exp_year":2030}}"#,
            key: checkout.secret)
        #expect(paid["sheet"] == "success", "\(paid.text)")
        #expect(await server.terminate() == 0)
    }

    @Test func aCheckoutThatNeverPaidHasNoChallenge() async throws {
        let server = try await ServerProcess.start()
        let created = try await server.request("POST", "/v1/checkouts", json: "{}")
        let secret = try #require(created["client_secret"]?.stringValue)
        let none = try await server.request("POST", "/v1/checkouts/\(created.id)/challenge", json: #"{"passed":true}"#, key: secret)
        #expect(none.status == 409 && none.errorCode == "no_challenge_pending", "\(none.text)")
        #expect(await server.terminate() == 0)
    }

    @Test func theProcessorLedgerRowsOfAnIntentFromTheMocksFile() async throws {
        let server = try await ServerProcess.start()
        let intent = try await server.createIntent(amount: 1000, capture: "manual")
        #expect(try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("4242424242424242"))["status"] == "requires_capture")
        #expect(try await server.request("POST", "/v1/payment_intents/\(intent)/capture", json: #"{"amount":600}"#)["status"] == "succeeded")
        #expect(try await server.request("POST", "/v1/refunds", json: #"{"payment_intent":"\#(intent)","amount":200}"#).status == 200)
        let ledger = try await server.request("GET", "/v1/payment_intents/\(intent)/processor_ledger")
        #expect(ledger.status == 200 && ledger["object"] == "processor_ledger" && ledger["available"] == true, "\(ledger.text)")
        let rows = try #require(ledger["data"]?.arrayValue)
        #expect(rows.compactMap { $0["operation"]?.stringValue } == ["authorize", "capture", "refund"], "\(ledger.text)")
        #expect(rows.map { $0["amount"]?.int64Value } == [1000, 600, 200])
        let attempt = try await server.request("GET", "/v1/payment_intents/\(intent)")["attempts"]?.arrayValue?.first?["id"]?.stringValue
        #expect(rows.allSatisfy { $0["attempt"]?.stringValue == attempt })
        #expect(rows.first?["last4"] == "4242" && rows.first?["network"] == "visa" && rows.first?["status"] == "approved")
        #expect(!ledger.text.contains("4242424242424242"), "no card number")

        // An intent with no attempt: the ledger has nothing, and says it can be read.
        let fresh = try await server.createIntent()
        let empty = try await server.request("GET", "/v1/payment_intents/\(fresh)/processor_ledger")
        #expect(empty["available"] == true && empty["data"]?.arrayValue?.isEmpty == true, "\(empty.text)")
        #expect(try await server.request("GET", "/v1/payment_intents/pi_nope/processor_ledger").status == 404)
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)/processor_ledger?x=1").status == 400)
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)/processor_ledger", key: "").status == 401)
        #expect(await server.terminate() == 0)
    }

    @Test func theProcessorLedgerOverHTTPFromTheMockServersAdminEndpoint() async throws {
        let directory = try TemporaryDirectory("paypanel-console-ledger")
        let processor = try await ProcessorServe.start(directory: directory)
        let server = try await ServerProcess.start(directory: directory, arguments: ["--processor", "http://127.0.0.1:\(processor.port)"])
        let intent = try await server.createIntent(amount: 1500)
        let confirmed = try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("5555555555554444"))
        #expect(confirmed["status"] == "succeeded", "\(confirmed.text)")
        let ledger = try await server.request("GET", "/v1/payment_intents/\(intent)/processor_ledger")
        #expect(ledger.status == 200 && ledger["available"] == true, "\(ledger.text)")
        let rows = ledger["data"]?.arrayValue ?? []
        #expect(rows.first?["operation"] == "authorize" && rows.first?["last4"] == "4444" && rows.first?["amount"]?.int64Value == 1500, "\(ledger.text)")
        let attempt = try await server.request("GET", "/v1/payment_intents/\(intent)")["attempts"]?.arrayValue?.first?["id"]?.stringValue
        #expect(!rows.isEmpty && rows.allSatisfy { $0["attempt"]?.stringValue == attempt }, "rows are named by PayPanel's attempt: \(ledger.text)")
        #expect(!ledger.text.contains("5555555555554444"))
        #expect(await server.terminate() == 0)
        #expect(await processor.terminate() == 0)
    }

    @Test func aProcessorThatCannotBeReadIsSaidSoNotShownEmpty() async throws {
        // Port 1: nothing listens there. The intent has an attempt (its outcome unknown or not
        // processed), so the ledger must be asked, and cannot answer.
        let server = try await ServerProcess.start(arguments: ["--processor", "http://127.0.0.1:1", "--processor-timeout", "2"])
        let intent = try await server.createIntent()
        _ = try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("4242424242424242"))
        let ledger = try await server.request("GET", "/v1/payment_intents/\(intent)/processor_ledger")
        #expect(ledger.status == 200 && ledger["available"] == false, "\(ledger.text)")
        let reason = ledger["reason"]?.stringValue ?? ""
        #expect(reason.contains("127.0.0.1:1"), "\(ledger.text)")
        #expect(await server.terminate() == 0)
    }

    @Test func theWebhookDeliveriesOfAnIntentWithTheirAttempts() async throws {
        let server = try await ServerProcess.start(arguments: ["--allow-private-webhooks"])
        // Port 1 refuses connections: every delivery attempt fails and is recorded.
        let endpoint = try await server.request("POST", "/v1/webhook_endpoints", json: #"{"url":"http://127.0.0.1:1/hooks"}"#)
        #expect(endpoint.status == 200, "\(endpoint.text)")
        let intent = try await server.createIntent()
        let other = try await server.createIntent()
        _ = try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("4242424242424242"))

        var deliveries: [JSONValue] = []
        let deadline = Date().addingTimeInterval(60)  // bounds a hang on a loaded machine only
        while Date() < deadline {
            let page = try await server.request("GET", "/v1/webhook_deliveries?payment_intent=\(intent)")
            #expect(page.status == 200, "\(page.text)")
            deliveries = page["data"]?.arrayValue ?? []
            if deliveries.contains(where: { ($0["attempts"]?.arrayValue?.count ?? 0) > 0 }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let attempted = try #require(deliveries.first { ($0["attempts"]?.arrayValue?.count ?? 0) > 0 })
        #expect(attempted["object"] == "webhook_delivery" && attempted["endpoint"]?.stringValue == endpoint.id)
        #expect(attempted["event_object"]?.stringValue == intent)
        #expect(attempted["event_type"]?.stringValue?.hasPrefix("payment_intent.") == true)
        let first = try #require(attempted["attempts"]?.arrayValue?.first)
        #expect(first["attempt"] == 1 && first["response_code"] == .null && first["error"]?.stringValue?.isEmpty == false, "\(attempted)")
        #expect(deliveries.allSatisfy { $0["event_object"]?.stringValue == intent }, "only this intent's events")
        let types = Set(deliveries.compactMap { $0["event_type"]?.stringValue })
        #expect(types.contains("payment_intent.succeeded") && types.contains("payment_intent.created"), "\(types)")

        let one = try await server.request("GET", "/v1/webhook_deliveries?payment_intent=\(intent)&limit=1")
        #expect(one["data"]?.arrayValue?.count == 1 && one["has_more"] == true, "\(one.text)")
        #expect(try await server.request("GET", "/v1/webhook_deliveries?payment_intent=\(other)")["data"]?.arrayValue?
            .allSatisfy { $0["event_object"]?.stringValue == other } == true)
        for query in ["", "?limit=5", "?payment_intent=\(intent)&limit=0", "?payment_intent=\(intent)&limit=101", "?payment_intent=\(intent)&x=1"] {
            #expect(try await server.request("GET", "/v1/webhook_deliveries\(query)").status == 400, "\(query)")
        }
        #expect(try await server.request("GET", "/v1/webhook_deliveries?payment_intent=pi_nope").status == 404)
        #expect(try await server.request("GET", "/v1/webhook_deliveries?payment_intent=\(intent)", key: "").status == 401)
        #expect(await server.terminate() == 0)
    }

    @Test func theNewRoutesAreInTheServedOpenAPIDocument() async throws {
        let server = try await ServerProcess.start()
        let document = try await server.request("GET", "/openapi.json", key: "")
        let paths = document["paths"]
        #expect(paths?["/v1/checkouts/{id}/challenge"]?["post"] != nil)
        #expect(paths?["/v1/payment_intents/{id}/processor_ledger"]?["get"] != nil)
        #expect(paths?["/v1/webhook_deliveries"]?["get"] != nil)
        #expect(await server.terminate() == 0)
    }
}

/// One `paypanel processor serve --port 0`, stopped by its pid.
final class ProcessorServe: @unchecked Sendable {
    let server: ListeningProcess
    var port: Int { server.port }

    private init(server: ListeningProcess) { self.server = server }

    static func start(directory: TemporaryDirectory) async throws -> ProcessorServe {
        ProcessorServe(server: try await ListeningProcess.paypanel(
            ["processor", "serve", "--port", "0", "--processor-db", directory.file("http-processor.sqlite")],
            name: "processor-serve", directory: directory))
    }

    @discardableResult
    func terminate() async -> Int32 { await server.stopGracefully(within: 20) }
}
