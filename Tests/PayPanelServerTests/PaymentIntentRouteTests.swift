import Foundation
import PayPanel
import Testing

/// The payment intent and refund routes over a real `paypanel serve` and real sockets.
@Suite struct PaymentIntentRouteTests {
    @Test func createGetConfirmCaptureRefund() async throws {
        let server = try await ServerProcess.start()
        let created = try await server.request(
            "POST", "/v1/payment_intents", json: #"{"amount":2500,"currency":"USD","capture_method":"manual","order_reference":"order-1"}"#)
        #expect(created.status == 200)
        #expect(created["object"] == "payment_intent")
        #expect(created["status"] == "requires_payment_method")
        #expect(created["capture_method"] == "manual")
        #expect(created.headers["Request-Id"]?.isEmpty == false)
        let id = created.id

        let confirmed = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(confirmed.status == 200, "\(confirmed.text)")
        #expect(confirmed["status"] == "requires_capture")
        #expect(confirmed["amount_capturable"] == 2500)
        #expect(!confirmed.text.contains("4242424242424242"))

        let captured = try await server.request("POST", "/v1/payment_intents/\(id)/capture", json: #"{"amount":2000}"#)
        #expect(captured.status == 200, "\(captured.text)")
        #expect(captured["status"] == "succeeded")
        #expect(captured["amount_captured"] == 2000)

        let refund = try await server.request("POST", "/v1/refunds", json: #"{"payment_intent":"\#(id)","amount":500}"#)
        #expect(refund.status == 200, "\(refund.text)")
        #expect(refund["object"] == "refund")
        #expect(refund["payment_intent"] == .string(id))
        let fetchedRefund = try await server.request("GET", "/v1/refunds/\(refund.id)")
        #expect(fetchedRefund.status == 200)
        #expect(fetchedRefund["amount"] == 500)

        let fetched = try await server.request("GET", "/v1/payment_intents/\(id)")
        #expect(fetched["amount_refunded"] == 500)
        #expect(fetched["attempts"]?.arrayValue?.count == 1)
        #expect(fetched["refunds"]?.arrayValue?.count == 1)
        #expect(fetched["events"] == nil)
        let withEvents = try await server.request("GET", "/v1/payment_intents/\(id)?include=events")
        #expect((withEvents["events"]?.arrayValue?.count ?? 0) >= 4)
        #expect(await server.terminate() == 0)
    }

    @Test func declineIs402WithTheIntentBackInRequiresPaymentMethod() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent()
        let declined = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4000000000000002"))
        #expect(declined.status == 402)
        #expect(declined.errorType == "card_error")
        #expect(declined.errorCode == "card_declined")
        #expect(declined.json["error"]?["decline_code"]?.stringValue != nil)
        #expect(declined.json["error"]?["payment_intent"]?["status"] == "requires_payment_method")
        #expect(declined.json["error"]?["request_id"]?.stringValue == declined.headers["Request-Id"])
        #expect(!declined.text.contains("4000000000000002"))
        // The intent takes another card.
        let approved = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(approved.status == 200)
        #expect(approved["status"] == "succeeded")
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains("4000000000000002") && !server.stderr.contains("4242424242424242"))
    }

    /// The API's own 3-D Secure answer (the device's goes through its checkout): passed
    /// authorizes and captures, failed is 402 with the intent back for another card.
    @Test func challengeAnsweredOverTheIntentRoute() async throws {
        let server = try await ServerProcess.start()
        let passing = try await server.createIntent()
        let challenged = try await server.request("POST", "/v1/payment_intents/\(passing)/confirm", json: ServerProcess.card("4000002760003184"))
        #expect(challenged.status == 200, "\(challenged.text)")
        #expect(challenged["status"] == "requires_action")
        let passed = try await server.request("POST", "/v1/payment_intents/\(passing)/challenge", json: #"{"passed":true}"#)
        #expect(passed.status == 200, "\(passed.text)")
        #expect(passed["status"] == "succeeded")
        let twice = try await server.request("POST", "/v1/payment_intents/\(passing)/challenge", json: #"{"passed":true}"#)
        #expect(twice.status == 409, "\(twice.text)")

        let failing = try await server.createIntent()
        _ = try await server.request("POST", "/v1/payment_intents/\(failing)/confirm", json: ServerProcess.card("4000002760003184"))
        let failed = try await server.request("POST", "/v1/payment_intents/\(failing)/challenge", json: #"{"passed":false}"#)
        #expect(failed.status == 402, "\(failed.text)")
        #expect(failed.json["error"]?["payment_intent"]?["status"] == "requires_payment_method")
        let noBody = try await server.request("POST", "/v1/payment_intents/\(failing)/challenge", json: "{}")
        #expect(noBody.status == 400)
        #expect(noBody.json["error"]?["param"] == "passed")
        let missingRefund = try await server.request("GET", "/v1/refunds/re_missing")
        #expect(missingRefund.status == 404)
        #expect(await server.terminate() == 0)
    }

    @Test func cancelAndStateConflicts() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent()
        let canceled = try await server.request("POST", "/v1/payment_intents/\(id)/cancel", json: #"{"reason":"duplicate"}"#)
        #expect(canceled.status == 200)
        #expect(canceled["status"] == "canceled")
        #expect(canceled["cancellation_reason"] == "duplicate")
        let again = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(again.status == 409)
        #expect(again.errorCode == "payment_intent_unexpected_state")
        #expect(await server.terminate() == 0)
    }

    @Test func listPagesNewestFirstWithCursorsAndStatus() async throws {
        let server = try await ServerProcess.start()
        var ids: [String] = []
        for _ in 0..<5 { ids.append(try await server.createIntent()) }
        _ = try await server.request("POST", "/v1/payment_intents/\(ids[0])/cancel")
        let newestFirst = Array(ids.reversed())

        let first = try await server.request("GET", "/v1/payment_intents?limit=2")
        #expect(first["object"] == "list")
        #expect(first["has_more"] == true)
        let firstIDs = first["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(firstIDs == Array(newestFirst[0..<2]))
        let second = try await server.request("GET", "/v1/payment_intents?limit=2&starting_after=\(firstIDs[1])")
        let secondIDs = second["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(secondIDs == Array(newestFirst[2..<4]))
        let third = try await server.request("GET", "/v1/payment_intents?limit=2&starting_after=\(secondIDs[1])")
        #expect(third["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [newestFirst[4]])
        #expect(third["has_more"] == false)
        let back = try await server.request("GET", "/v1/payment_intents?limit=2&ending_before=\(secondIDs[0])")
        #expect(back["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == firstIDs)
        #expect(back["has_more"] == false)

        let canceled = try await server.request("GET", "/v1/payment_intents?status=canceled")
        #expect(canceled["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[0]])
        #expect(try await server.request("GET", "/v1/payment_intents?limit=0").status == 400)
        #expect(try await server.request("GET", "/v1/payment_intents?limit=101").status == 400)
        #expect(try await server.request("GET", "/v1/payment_intents?status=nope").status == 400)
        #expect(try await server.request("GET", "/v1/payment_intents?starting_after=pi_unknown").status == 404)
        #expect(await server.terminate() == 0)
    }

    @Test func badRequestsGetTheEnvelope() async throws {
        let server = try await ServerProcess.start()
        let malformed = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"amount":2}"#)
        #expect(malformed.status == 400)
        #expect(malformed.errorCode == "invalid_json")
        #expect(malformed.json["error"]?["request_id"]?.stringValue == malformed.headers["Request-Id"])
        let nonUTF8 = try await server.request("POST", "/v1/payment_intents", body: Array(#"{"order_reference":""#.utf8) + [0xFF] + Array(#""}"#.utf8),
                                               headers: ["Content-Type": "application/json"])
        #expect(nonUTF8.status == 400)
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let tooDeep = try await server.request("POST", "/v1/payment_intents", json: deep)
        #expect(tooDeep.status == 400)
        #expect(tooDeep.json["error"]?["message"]?.stringValue?.contains("deep") == true || tooDeep.json["error"]?["message"]?.stringValue?.contains("depth") == true)
        let wrongType = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#, headers: ["Content-Type": "text/plain"])
        #expect(wrongType.status == 415)
        let missing = try await server.request("POST", "/v1/payment_intents", json: #"{"currency":"USD"}"#)
        #expect(missing.status == 400)
        #expect(missing.json["error"]?["param"] == "amount")
        let lower = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":10,"currency":"usd"}"#)
        #expect(lower.json["error"]?["param"] == "currency")
        let badCard = try await server.request("POST", "/v1/payment_intents/pi_x/confirm", json: ServerProcess.card("4242424242424241"))
        #expect(badCard.status == 400)
        #expect(!badCard.text.contains("4242424242424241"))
        let unknown = try await server.request("GET", "/v1/payment_intents/pi_missing")
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "resource_missing")
        let noRoute = try await server.request("GET", "/v1/nothing")
        #expect(noRoute.status == 404)
        let wrongMethod = try await server.request("DELETE", "/v1/payment_intents")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "GET, HEAD, POST")
        #expect(await server.terminate() == 0)
    }
}
