import Foundation
import PayPanel
import Testing
import TestSupport

/// The trigger table over the wire, the faults only a network has, and Idempotency-Key with
/// Stripe's semantics.
@Suite("processor serve: triggers, network faults and idempotency keys")
struct FaultAndIdempotencyWireTests {
    @Test("HTTP_503 and HTTP_429 answer with Retry-After and record nothing; HTTP_500_BEFORE records nothing; HTTP_500_AFTER is approved")
    func statusFaults() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_status_faults")
        for (holder, status) in [("HTTP_503", 503), ("HTTP_429", 429), ("HTTP_500_BEFORE", 500), ("HTTP_500_AFTER", 500)] {
            let reply = try #require(try await client.pay(holder: holder, metadata: ["attempt_id": holder]).reply)
            #expect(reply.status == status, "\(holder): \(reply.text)")
            #expect(reply.error != nil, "\(holder)")
            if status != 500 { #expect(reply.headers["Retry-After"] == "1", "\(holder)") }
            let found = try await client.search(attempt: holder)
            if holder == "HTTP_500_AFTER" {
                #expect(found.first?["status"]?.stringValue == "requires_capture", "processed although the answer was a 500")
            } else {
                #expect(found.isEmpty, "\(holder) must leave no intent: the request was not processed")
            }
        }
        let ledger = try await client.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.compactMap { $0["trigger"]?.stringValue } == ["HTTP_500_AFTER"])
        #expect(await server.terminate() == 0)
    }

    @Test("A lost answer (TIMEOUT_THEN_APPROVED) outlasts the client's timeout; the approval is found by search")
    func lostAnswer() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_lost")
        let outcome = try await client.pay(holder: "TIMEOUT_THEN_APPROVED", metadata: ["attempt_id": "att_lost"], timeout: 2)
        guard case .noAnswerWithin = outcome else {
            Issue.record("expected no answer, got \(outcome)")
            return
        }
        let found = try await client.search(attempt: "att_lost")
        #expect(found.first?["status"]?.stringValue == "requires_capture")
        let notReceived = try await client.pay(holder: "TIMEOUT_THEN_NOT_RECEIVED", metadata: ["attempt_id": "att_never"], timeout: 2)
        guard case .noAnswerWithin = notReceived else {
            Issue.record("expected no answer, got \(notReceived)")
            return
        }
        #expect(try await client.search(attempt: "att_never").isEmpty)
        #expect(await server.terminate() == 0)
    }

    @Test("DROP_AFTER: processed, then the connection is closed without an answer; DROP_BEFORE: closed, nothing recorded")
    func droppedConnections() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_drops")
        let after = try await client.pay(holder: "DROP_AFTER", metadata: ["attempt_id": "att_after"])
        guard case .closedWithoutAnswer = after else {
            Issue.record("expected a dropped connection, got \(after)")
            return
        }
        #expect(try await client.search(attempt: "att_after").first?["status"]?.stringValue == "requires_capture")
        let declinedThenDropped = try await client.pay(method: "pm_card_chargeDeclined", holder: "DROP_AFTER", metadata: ["attempt_id": "att_declined"])
        guard case .closedWithoutAnswer = declinedThenDropped else {
            Issue.record("expected a dropped connection, got \(declinedThenDropped)")
            return
        }
        let declined = try await client.search(attempt: "att_declined").first
        #expect(declined?["last_payment_error"]?["decline_code"]?.stringValue == "generic_decline")
        let before = try await client.pay(holder: "DROP_BEFORE", metadata: ["attempt_id": "att_before"])
        guard case .closedWithoutAnswer = before else {
            Issue.record("expected a dropped connection, got \(before)")
            return
        }
        #expect(try await client.search(attempt: "att_before").isEmpty)
        #expect(await server.terminate() == 0)
    }

    @Test("A holder-name chain HTTP_503|APPROVE: the retry with the same Idempotency-Key gets the next step")
    func chainOverRetries() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_chain")
        let first = try #require(try await client.pay(holder: "HTTP_503|APPROVE", idempotencyKey: "attempt-1").reply)
        #expect(first.status == 503, "\(first.text)")
        let second = try #require(try await client.pay(holder: "HTTP_503|APPROVE", idempotencyKey: "attempt-1").reply)
        #expect(second.status == 200, "\(second.text)")
        #expect(second.status_ == "requires_capture")
        #expect(second.headers["Idempotent-Replayed"] == nil, "a 503 is not stored for replay")
        #expect(await server.terminate() == 0)
    }

    @Test("A retry with the same key after a 500 that was processed gets the approval, not a refusal, and no second authorization")
    func retryAfterProcessed500() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_retry_500")
        let first = try #require(try await client.pay(holder: "HTTP_500_AFTER", idempotencyKey: "att_500").reply)
        #expect(first.status == 500)
        let retry = try #require(try await client.pay(holder: "HTTP_500_AFTER", idempotencyKey: "att_500").reply)
        #expect(retry.status == 200, "\(retry.text)")
        #expect(retry.status_ == "requires_capture")
        // A decline whose answer was dropped: the retry learns the decline.
        let dropped = try await client.pay(method: "pm_card_chargeDeclined", holder: "DROP_AFTER", idempotencyKey: "att_drop")
        guard case .closedWithoutAnswer = dropped else {
            Issue.record("expected a dropped connection, got \(dropped)")
            return
        }
        let again = try #require(try await client.pay(method: "pm_card_chargeDeclined", holder: "DROP_AFTER", idempotencyKey: "att_drop").reply)
        #expect(again.status == 402, "\(again.text)")
        #expect(again.error?["decline_code"]?.stringValue == "generic_decline")
        let ledger = try await client.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.filter { $0["operation"]?.stringValue == "authorize" }.count == 2, "\(ledger.text)")
        #expect(await server.terminate() == 0)
    }

    @Test("Idempotency-Key: replay with Idempotent-Replayed (declines too), 400 idempotency_error on other parameters, 409 while in flight")
    func idempotencyKeys() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_idempotency")
        let first = try #require(try await client.pay(idempotencyKey: "order-7").reply)
        let replay = try #require(try await client.pay(idempotencyKey: "order-7").reply)
        #expect(replay.status == 200)
        #expect(replay.id == first.id)
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        #expect(first.headers["Idempotent-Replayed"] == nil)
        let ledger = try await client.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.count == 1, "one authorization for two requests")

        let mismatch = try #require(try await client.pay(1500, idempotencyKey: "order-7").reply)
        #expect(mismatch.status == 400)
        #expect(mismatch.error?["type"]?.stringValue == "idempotency_error")

        let decline = try #require(try await client.pay(method: "pm_card_chargeDeclinedInsufficientFunds", idempotencyKey: "order-8").reply)
        let declineReplay = try #require(try await client.pay(method: "pm_card_chargeDeclinedInsufficientFunds", idempotencyKey: "order-8").reply)
        #expect(decline.status == 402)
        #expect(declineReplay.status == 402)
        #expect(declineReplay.headers["Idempotent-Replayed"] == "true")
        #expect(declineReplay.text == decline.text)

        // A request held without an answer keeps its key in flight: the same key gets 409.
        let held = Task { try await client.pay(holder: "TIMEOUT_THEN_APPROVED", idempotencyKey: "order-9", timeout: 40) }
        var conflict: Reply?
        let deadline = Date().addingTimeInterval(25)
        while conflict == nil, Date() < deadline {
            if let reply = try await client.pay(holder: "TIMEOUT_THEN_APPROVED", idempotencyKey: "order-9", timeout: 1).reply, reply.status == 409 {
                conflict = reply
            }
        }
        #expect(conflict?.error?["type"]?.stringValue == "idempotency_error")
        #expect(await server.terminate() == 0)
        _ = try? await held.value
    }

    @Test("Authentication: Bearer or Basic with any sk_test_ key; anything else is 401")
    func authentication() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_auth")
        let basic = "Basic " + Data("sk_test_auth:".utf8).base64EncodedString()
        let viaBasic = try await client.call("GET", "/v1/payment_intents", authorization: basic)
        #expect(viaBasic.status == 200, "\(viaBasic.text)")
        for header in ["", "Bearer sk_live_abc", "Bearer sk_test_", "Bearer sk_test_a b", "Basic !!!", "Token sk_test_abc"] {
            let reply = try await client.call("GET", "/v1/payment_intents", authorization: header)
            #expect(reply.status == 401, "\(header)")
            #expect(reply.error?["type"]?.stringValue == "invalid_request_error")
            #expect(!reply.text.contains("sk_live_abc") && !reply.text.contains("sk_test_abc"), "the key is not echoed")
        }
        #expect(await server.terminate() == 0)
    }
}
