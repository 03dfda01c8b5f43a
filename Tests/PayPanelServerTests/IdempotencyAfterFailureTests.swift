import Foundation
import PayPanel
import Testing
import TestSupport

/// `Idempotency-Key` when a request fails after it started its work: the server runs with
/// `$PAYPANEL_STORE_FAULT`, which makes the write that records the processor's answer fail once
/// (as a full disk would) while the server lives on. The client gets a 500; its retry with the
/// same key — at once, no lease to wait for — resumes what was started (looks it up at the
/// processor) and answers as the route would have, never doing it a second time; the answer
/// stored for the key is that one, not the 500 and not a 409 of the retry.
@Suite struct IdempotencyAfterFailureTests {
    /// The processor's ledger rows of `intent` as `operation:status`.
    static func ledger(_ server: ServerProcess, _ intent: String) async throws -> [String] {
        let ledger = try await server.request("GET", "/v1/payment_intents/\(intent)/processor_ledger")
        return (ledger["data"]?.arrayValue ?? []).map { "\($0["operation"]?.stringValue ?? "?"):\($0["status"]?.stringValue ?? "?")" }
    }

    @Test func aPartialRefundWhoseAnswerWasNotRecordedIsResumedByTheRetryNotRepeated() async throws {
        let server = try await ServerProcess.start(environment: ["PAYPANEL_STORE_FAULT": "after-refund"])
        let intent = try await server.createIntent(amount: 1000, capture: "automatic")
        let paid = try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(paid["status"] == "succeeded", "\(paid.text)")
        let refund = #"{"payment_intent":"\#(intent)","amount":300}"#

        let failed = try await server.request("POST", "/v1/refunds", json: refund, headers: ["Idempotency-Key": "refund-1"])
        #expect(failed.status == 500 && failed.errorCode == "internal_error", "\(failed.text)")
        let pending = try await server.request("GET", "/v1/payment_intents/\(intent)")["refunds"]?.arrayValue?.first
        let refundID = try #require(pending?["id"]?.stringValue)
        #expect(pending?["status"] == "pending", "the answer was not recorded")
        #expect(try await Self.ledger(server, intent) == ["authorize:approved", "capture:approved", "refund:approved"])

        let retried = try await server.request("POST", "/v1/refunds", json: refund, headers: ["Idempotency-Key": "refund-1"])
        #expect(retried.status == 200 && retried.headers["Idempotent-Replayed"] == nil, "\(retried.text)")
        #expect(retried.id == refundID && retried["status"] == "succeeded" && retried["object"] == "refund" && retried["amount"] == 300)
        let replayed = try await server.request("POST", "/v1/refunds", json: refund, headers: ["Idempotency-Key": "refund-1"])
        #expect(replayed.headers["Idempotent-Replayed"] == "true" && replayed.text == retried.text, "\(replayed.text)")

        #expect(try await Self.ledger(server, intent) == ["authorize:approved", "capture:approved", "refund:approved"], "one refund at the processor")
        let after = try await server.request("GET", "/v1/payment_intents/\(intent)")
        #expect(after["refunds"]?.arrayValue?.count == 1 && after["amount_refunded"] == 300, "\(after.text)")
        #expect(await server.terminate() == 0)
        let disagreements = try LedgerAgreement.disagreements(
            databasePath: server.databasePath, ledgerPath: server.directory.file("processor.sqlite"), now: Date(), settled: true)
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    @Test func aConfirmWhoseAnswerWasNotRecordedIsResumedByTheRetryNotAnsweredWith409() async throws {
        let server = try await ServerProcess.start(environment: ["PAYPANEL_STORE_FAULT": "after-authorize"])
        let intent = try await server.createIntent(amount: 1000, capture: "automatic")
        let confirm = "/v1/payment_intents/\(intent)/confirm"
        let card = ServerProcess.card("4242424242424242")

        let failed = try await server.request("POST", confirm, json: card, headers: ["Idempotency-Key": "pay-1"])
        #expect(failed.status == 500, "\(failed.text)")
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)")["status"] == "processing")

        // The charge went through; the retry finds it (a lookup) and answers as confirm does.
        let retried = try await server.request("POST", confirm, json: card, headers: ["Idempotency-Key": "pay-1"])
        #expect(retried.status == 200 && retried.headers["Idempotent-Replayed"] == nil, "\(retried.text)")
        #expect(retried["object"] == "payment_intent" && retried["status"] == "succeeded" && retried["amount_captured"] == 1000)
        let replayed = try await server.request("POST", confirm, json: card, headers: ["Idempotency-Key": "pay-1"])
        #expect(replayed.status == 200 && replayed.headers["Idempotent-Replayed"] == "true" && replayed.text == retried.text)

        #expect(try await Self.ledger(server, intent) == ["authorize:approved", "capture:approved"], "one authorization")
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)")["attempts"]?.arrayValue?.count == 1)
        #expect(await server.terminate() == 0)
    }

    @Test func aDevicePayWhoseAnswerWasNotRecordedIsResumedByTheRetry() async throws {
        let server = try await ServerProcess.start(environment: ["PAYPANEL_STORE_FAULT": "after-authorize"])
        let checkout = try await server.request("POST", "/v1/checkouts", json: "{}")
        let secret = checkout["client_secret"]?.stringValue ?? ""
        let pay = "/v1/checkouts/\(checkout.id)/pay"
        let card = #"{"amount":1000,"card":{"number":"4242424242424242","exp_month":12,"exp_year":2030}}"#

        let failed = try await server.request("POST", pay, json: card, key: secret, headers: ["Idempotency-Key": "tap-1"])
        #expect(failed.status == 500, "\(failed.text)")
        let retried = try await server.request("POST", pay, json: card, key: secret, headers: ["Idempotency-Key": "tap-1"])
        #expect(retried.status == 200 && retried["sheet"] == "success" && retried["status"] == "paid", "\(retried.text)")
        let intent = try #require(retried["payment_intent"]?.stringValue)
        #expect(try await Self.ledger(server, intent).filter { $0.hasPrefix("authorize:") } == ["authorize:approved"])
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)")["attempts"]?.arrayValue?.count == 1)
        #expect(await server.terminate() == 0)
    }

    @Test func aCaptureWhoseAnswerWasNotRecordedIsResumedByTheRetry() async throws {
        let server = try await ServerProcess.start(environment: ["PAYPANEL_STORE_FAULT": "after-capture"])
        let intent = try await server.createIntent(amount: 1000, capture: "manual")
        let confirmed = try await server.request("POST", "/v1/payment_intents/\(intent)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(confirmed["status"] == "requires_capture", "\(confirmed.text)")
        let capture = "/v1/payment_intents/\(intent)/capture"

        let failed = try await server.request("POST", capture, json: #"{"amount":600}"#, headers: ["Idempotency-Key": "cap-1"])
        #expect(failed.status == 500, "\(failed.text)")
        let retried = try await server.request("POST", capture, json: #"{"amount":600}"#, headers: ["Idempotency-Key": "cap-1"])
        #expect(retried.status == 200 && retried["status"] == "succeeded" && retried["amount_captured"] == 600, "\(retried.text)")
        #expect(try await Self.ledger(server, intent) == ["authorize:approved", "capture:approved"], "one capture")
        #expect(await server.terminate() == 0)
    }

    /// The operator's resolution as canceled voids the authorization the processor holds; the
    /// void's answer is not recorded. The retry finishes the void and answers the resolution as
    /// it was recorded (from the intent's history), without resolving a second time (which
    /// would be a 409: the intent has left requires_merchant_action).
    @Test func aResolutionWhoseVoidWasNotRecordedIsResumedByTheRetry() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let id = try await ResolveRouteTests.intentNeedingAnOperator(directory)
        let server = try await ServerProcess.start(
            directory: directory, arguments: ["--now", ResolveRouteTests.now], environment: ["PAYPANEL_STORE_FAULT": "after-void"])
        let path = "/v1/payment_intents/\(id)/resolve"
        let body = #"{"resolution":"canceled","note":"the payer called it off","operator":"ada"}"#

        let failed = try await server.request("POST", path, json: body, headers: ["Idempotency-Key": "resolve-1"])
        #expect(failed.status == 500, "\(failed.text)")
        let retried = try await server.request("POST", path, json: body, headers: ["Idempotency-Key": "resolve-1"])
        #expect(retried.status == 200 && retried.headers["Idempotent-Replayed"] == nil, "\(retried.text)")
        #expect(retried["status"] == "canceled" && retried["resolution"]?["as"] == "canceled", "\(retried.text)")
        #expect(retried["resolution"]?["operator"] == "ada" && retried["resolution"]?["note"] == "the payer called it off")
        #expect(try await Self.ledger(server, id).filter { $0.hasPrefix("void:") } == ["void:approved"], "one void")
        let history = try await server.request("GET", "/v1/payment_intents/\(id)?include=events")
        let types = history["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
        #expect(types.filter { $0.contains("resolved") }.count == 1, "resolved once: \(types)")
        #expect(await server.terminate() == 0)
    }

    /// A request that collides with a processor call still in flight on the same intent gets a
    /// 409 `payment_intent_operation_in_flight`: it started nothing, so its key is released — the
    /// 409 is not its answer. Retried once the call is settled, it runs for real, and that answer
    /// is the one stored.
    ///
    /// The call stays in flight for as long as the test needs, whatever the machine's load: the
    /// first confirm's answer is not recorded (`$PAYPANEL_STORE_FAULT`), and the clock is fixed
    /// (`--now`), so the worker's reconciliation never comes due; the first key's retry settles
    /// it. (A slow processor answer was tried first: on a loaded CI machine the collision
    /// sometimes came after it, even at 10 s.)
    @Test func aTransient409IsNeverTheKeysAnswerAndAKeyWithNothingStartedIsReleased() async throws {
        let server = try await ServerProcess.start(
            arguments: ["--now", ResolveRouteTests.now], environment: ["PAYPANEL_STORE_FAULT": "after-authorize"])
        let intent = try await server.createIntent(capture: "manual")
        let confirm = "/v1/payment_intents/\(intent)/confirm"
        let first = ServerProcess.card("4242424242424242")
        let failed = try await server.request("POST", confirm, json: first, headers: ["Idempotency-Key": "first"])
        #expect(failed.status == 500, "\(failed.text)")
        #expect(try await server.request("GET", "/v1/payment_intents/\(intent)")["status"] == "processing")

        let card = ServerProcess.card("5555555555554444")
        let collided = try await server.request("POST", confirm, json: card, headers: ["Idempotency-Key": "second"])
        #expect(collided.status == 409 && collided.errorCode == "payment_intent_operation_in_flight", "\(collided.text)")
        let settled = try await server.request("POST", confirm, json: first, headers: ["Idempotency-Key": "first"])
        #expect(settled.status == 200 && settled["status"] == "requires_capture", "\(settled.text)")

        let retried = try await server.request("POST", confirm, json: card, headers: ["Idempotency-Key": "second"])
        #expect(retried.headers["Idempotent-Replayed"] == nil, "the 409 was not stored: \(retried.text)")
        #expect(retried.status == 409 && retried.errorCode == "payment_intent_unexpected_state", "\(retried.text)")
        let replayed = try await server.request("POST", confirm, json: card, headers: ["Idempotency-Key": "second"])
        #expect(replayed.headers["Idempotent-Replayed"] == "true" && replayed.errorCode == "payment_intent_unexpected_state")
        #expect(try await Self.ledger(server, intent) == ["authorize:approved"])
        #expect(await server.terminate() == 0)
    }
}
