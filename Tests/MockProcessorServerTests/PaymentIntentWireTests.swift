import Foundation
import PayPanel
import Testing
import TestSupport

/// `paypanel processor serve` as a Stripe SDK would see it: a real process on port 0, driven
/// over sockets with form-encoded bodies.
@Suite("processor serve: PaymentIntents and Refunds over HTTP")
struct PaymentIntentWireTests {
    @Test("Approve, capture part, refund part: Stripe's shapes, lower-case currency, latest_charge, the ledger agrees")
    func approveCaptureRefund() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_approve")

        let created = try #require(try await client.pay(2500, metadata: ["order": "o-1"]).reply)
        #expect(created.status == 200, "\(created.text)")
        #expect(created["object"]?.stringValue == "payment_intent")
        #expect(created.status_ == "requires_capture")
        #expect(created["currency"]?.stringValue == "usd")
        #expect(created["amount_capturable"]?.int64Value == 2500)
        #expect(created["latest_charge"]?.stringValue?.hasPrefix("ch_") == true)
        #expect(created["metadata"]?["order"]?.stringValue == "o-1")
        #expect(created.headers["Request-Id"]?.hasPrefix("req_") == true)
        #expect(!created.text.contains("4242424242424242"))

        let captured = try await client.call("POST", "/v1/payment_intents/\(created.id)/capture", [("amount_to_capture", "2000")])
        #expect(captured.status == 200, "\(captured.text)")
        #expect(captured.status_ == "succeeded")
        #expect(captured["amount_received"]?.int64Value == 2000)

        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", created.id), ("amount", "500")])
        #expect(refund.status == 200, "\(refund.text)")
        #expect(refund["object"]?.stringValue == "refund")
        #expect(refund["status"]?.stringValue == "succeeded")
        let tooMuch = try await client.call("POST", "/v1/refunds", [("payment_intent", created.id), ("amount", "1600")])
        #expect(tooMuch.status == 400)
        #expect(tooMuch.error?["code"]?.stringValue == "amount_too_large")
        #expect(tooMuch.error?["param"]?.stringValue == "amount")

        let fetched = try await client.call("GET", "/v1/refunds/\(refund.id)")
        #expect(fetched["amount"]?.int64Value == 500)
        let listed = try await client.call("GET", "/v1/refunds", [("payment_intent", created.id)])
        #expect(listed["data"]?.arrayValue?.count == 1)

        let ledger = try await client.call("GET", "/_mock/ledger")
        let operations = ledger["data"]?.arrayValue?.compactMap { $0["operation"]?.stringValue } ?? []
        #expect(operations == ["authorize", "capture", "refund"])
        #expect(!ledger.text.contains("4242424242424242"))
        #expect(await server.terminate() == 0)
    }

    @Test(
        "Stripe's test payment methods decline with 402 card_error, code and decline_code; the intent keeps last_payment_error",
        arguments: [
            ("pm_card_chargeDeclined", "card_declined", "generic_decline"),
            ("pm_card_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds"),
            ("pm_card_chargeDeclinedLostCard", "card_declined", "lost_card"),
            ("pm_card_chargeDeclinedStolenCard", "card_declined", "stolen_card"),
            ("pm_card_chargeDeclinedExpiredCard", "expired_card", "expired_card"),
            ("pm_card_chargeDeclinedProcessingError", "processing_error", "processing_error"),
        ])
    func declines(method: String, code: String, declineCode: String) async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_declines")
        let reply = try #require(try await client.pay(method: method).reply)
        #expect(reply.status == 402, "\(reply.text)")
        #expect(reply.error?["type"]?.stringValue == "card_error")
        #expect(reply.error?["code"]?.stringValue == code)
        #expect(reply.error?["decline_code"]?.stringValue == declineCode)
        let intent = try #require(reply.error?["payment_intent"])
        #expect(intent["status"]?.stringValue == "requires_payment_method")
        #expect(intent["last_payment_error"]?["decline_code"]?.stringValue == declineCode)
        // Lost and stolen cards are told the generic message, as the payer would be.
        #expect(reply.error?["message"]?.stringValue?.contains("lost") == false)
        let id = try #require(intent["id"]?.stringValue)
        let fetched = try await client.call("GET", "/v1/payment_intents/\(id)")
        #expect(fetched.status_ == "requires_payment_method")
        // Confirming again with a good card is a new authorization on the same intent.
        let retried = try await client.call("POST", "/v1/payment_intents/\(id)/confirm", [("payment_method", "pm_card_visa")])
        #expect(retried.status == 200, "\(retried.text)")
        #expect(retried.status_ == "requires_capture")
        #expect(await server.terminate() == 0)
    }

    @Test("3-D Secure: requires_action with next_action, then the test endpoint passes or fails the challenge")
    func threeDSecure() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_3ds")
        let passing = try #require(try await client.pay(method: "pm_card_authenticationRequired").reply)
        #expect(passing.status_ == "requires_action", "\(passing.text)")
        #expect(passing["next_action"]?["type"]?.stringValue == "redirect_to_url")
        let url = try #require(passing["next_action"]?["redirect_to_url"]?["url"]?.stringValue)
        #expect(url == "http://127.0.0.1:\(server.port)/_mock/3ds/\(passing.id)")
        let passed = try await client.call("POST", "/_mock/3ds/\(passing.id)", [("outcome", "pass")])
        #expect(passed.status_ == "requires_capture", "\(passed.text)")

        let failing = try #require(try await client.pay(method: "4000002760003184").reply)
        let failed = try await client.call("POST", "/_mock/3ds/\(failing.id)", [("outcome", "fail")])
        #expect(failed.status == 402)
        #expect(failed.error?["code"]?.stringValue == "payment_intent_authentication_failure")
        #expect(await server.terminate() == 0)
    }

    @Test("Create without confirm, confirm later, cancel; list pages with limit, starting_after and ending_before; search by metadata")
    func lifecycleListAndSearch() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_lists")
        var ids: [String] = []
        for index in 1...3 {
            let created = try await client.call(
                "POST", "/v1/payment_intents",
                [("amount", "\(index * 100)"), ("currency", "usd"), ("capture_method", "manual"), ("metadata[attempt_id]", "att_\(index)")])
            #expect(created.status_ == "requires_payment_method", "\(created.text)")
            ids.append(created.id)
        }
        let first = try await client.call("GET", "/v1/payment_intents", [("limit", "2")])
        #expect(first["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2], ids[1]])
        #expect(first["has_more"]?.boolValue == true)
        let second = try await client.call("GET", "/v1/payment_intents", [("limit", "2"), ("starting_after", ids[1])])
        #expect(second["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[0]])
        #expect(second["has_more"]?.boolValue == false)
        let back = try await client.call("GET", "/v1/payment_intents", [("ending_before", ids[0])])
        #expect(back["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2], ids[1]])

        let found = try await client.search(attempt: "att_2")
        #expect(found.compactMap { $0["id"]?.stringValue } == [ids[1]])
        #expect(try await client.search(attempt: "att_none").isEmpty)
        // description is not among PaymentIntents' search fields: refused, never an empty result.
        let badQuery = try await client.call("GET", "/v1/payment_intents/search", [("query", "amount>5 description:'x'")])
        #expect(badQuery.status == 400)
        #expect(badQuery.error?["param"]?.stringValue == "query")

        let confirmed = try await client.call("POST", "/v1/payment_intents/\(ids[0])/confirm", [("payment_method", "pm_card_mastercard")])
        #expect(confirmed.status_ == "requires_capture", "\(confirmed.text)")
        let canceled = try await client.call("POST", "/v1/payment_intents/\(ids[0])/cancel", [("cancellation_reason", "requested_by_customer")])
        #expect(canceled.status_ == "canceled", "\(canceled.text)")
        let again = try await client.call("POST", "/v1/payment_intents/\(ids[0])/cancel")
        #expect(again.status == 400)
        #expect(again.error?["code"]?.stringValue == "payment_intent_unexpected_state")
        let ledger = try await client.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.compactMap { $0["operation"]?.stringValue } == ["authorize", "void"])
        #expect(await server.terminate() == 0)
    }

    @Test("Invalid requests: 400 invalid_request_error with param; 404 resource_missing; unknown parameters refused")
    func invalidRequests() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_invalid")
        let cases: [([(String, String)], String)] = [
            ([("currency", "usd")], "amount"),
            ([("amount", "100")], "currency"),
            ([("amount", "-5"), ("currency", "usd")], "amount"),
            ([("amount", "1.5"), ("currency", "usd")], "amount"),
            ([("amount", "100"), ("currency", "xyz")], "currency"),
            ([("amount", "100"), ("currency", "usd"), ("capture_method", "later")], "capture_method"),
            ([("amount", "100"), ("currency", "usd"), ("amuont", "1")], "amuont"),
            ([("amount", "100"), ("currency", "usd"), ("payment_method", "pm_card_nope")], "payment_method"),
            ([("amount", "100"), ("currency", "usd"), ("amount[x]", "1")], "amount[x]"),
        ]
        for (pairs, param) in cases {
            let reply = try await client.call("POST", "/v1/payment_intents", pairs)
            #expect(reply.status == 400 || reply.status == 404, "\(pairs): \(reply.text)")
            #expect(reply.error?["type"]?.stringValue == "invalid_request_error", "\(pairs)")
            #expect(reply.error?["param"]?.stringValue == param, "\(pairs): \(reply.text)")
        }
        let missing = try await client.call("GET", "/v1/payment_intents/pi_missing")
        #expect(missing.status == 404)
        #expect(missing.error?["code"]?.stringValue == "resource_missing")
        let badNumber = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "100"), ("currency", "usd"), ("payment_method_data[card][number]", "4242424242424241"),
        ])
        #expect(badNumber.status == 402)
        #expect(badNumber.error?["code"]?.stringValue == "incorrect_number")
        #expect(!badNumber.text.contains("424242424242"))
        #expect(await server.terminate() == 0)
    }
}
