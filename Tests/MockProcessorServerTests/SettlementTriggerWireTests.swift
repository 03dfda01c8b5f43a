import Foundation
import PayPanel
import Testing
import TestSupport

/// The triggers that act after the authorization, and network tokens, over the wire.
@Suite("processor serve: capture, void and refund triggers; Apple Pay network tokens")
struct SettlementTriggerWireTests {
    @Test("CAPTURE_FAIL, VOID_FAIL, REFUND_FAIL, REFUND_ASYNC (settled by the test clock), CAPTURE_TIMEOUT, SLOW_1S")
    func settlementTriggers() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_settlement")

        let captureFails = try #require(try await client.pay(holder: "CAPTURE_FAIL").reply)
        let refused = try await client.call("POST", "/v1/payment_intents/\(captureFails.id)/capture")
        #expect(refused.status == 402, "\(refused.text)")
        #expect(refused.error?["decline_code"]?.stringValue == "capture_failed")
        #expect(try await client.call("POST", "/v1/payment_intents/\(captureFails.id)/cancel").status_ == "canceled", "still voidable")

        let voidFails = try #require(try await client.pay(holder: "VOID_FAIL").reply)
        let notReleased = try await client.call("POST", "/v1/payment_intents/\(voidFails.id)/cancel")
        #expect(notReleased.status == 400, "\(notReleased.text)")
        #expect(try await client.call("GET", "/v1/payment_intents/\(voidFails.id)").status_ == "requires_capture")

        let refundFails = try #require(try await client.pay(holder: "REFUND_FAIL", capture: "automatic").reply)
        #expect(refundFails.status_ == "succeeded", "\(refundFails.text)")
        let failedRefund = try await client.call("POST", "/v1/refunds", [("payment_intent", refundFails.id)])
        #expect(failedRefund["status"]?.stringValue == "failed", "\(failedRefund.text)")

        let refundAsync = try #require(try await client.pay(holder: "REFUND_ASYNC", capture: "automatic").reply)
        let pending = try await client.call("POST", "/v1/refunds", [("payment_intent", refundAsync.id), ("amount", "300")])
        #expect(pending["status"]?.stringValue == "pending", "\(pending.text)")
        #expect(try await client.call("GET", "/v1/refunds/\(pending.id)")["status"]?.stringValue == "pending")
        _ = try await client.call("POST", "/_mock/clock/advance", [("seconds", "61")])
        #expect(try await client.call("GET", "/v1/refunds/\(pending.id)")["status"]?.stringValue == "succeeded")

        let captureTimeout = try #require(try await client.pay(holder: "CAPTURE_TIMEOUT").reply)
        let held = try await client.send("POST", "/v1/payment_intents/\(captureTimeout.id)/capture", timeout: 2)
        guard case .noAnswerWithin = held else {
            Issue.record("expected no answer to the capture, got \(held)")
            return
        }
        #expect(try await client.call("GET", "/v1/payment_intents/\(captureTimeout.id)").status_ == "succeeded", "the capture went through")

        let slow = try await client.pay(holder: "SLOW_1S")
        #expect(slow.reply?.status_ == "requires_capture")
        #expect(await server.terminate() == 0)
    }

    @Test("An Apple Pay network token: approved once; the same cryptogram again is invalid_cryptogram; an old one expired_cryptogram")
    func networkTokens() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_tokens")
        func token(_ cryptogram: String, created: String? = nil) -> [(String, String)] {
            var pairs = [("amount", "500"), ("currency", "usd"), ("confirm", "true"), ("capture_method", "manual"),
                         ("payment_method_data[type]", "card"), ("payment_method_data[card][number]", "4242424242424242"),
                         ("payment_method_data[card][exp_month]", "12"), ("payment_method_data[card][exp_year]", "2030"),
                         ("payment_method_data[card][network_token][cryptogram]", cryptogram),
                         ("payment_method_data[card][network_token][eci]", "05")]
            if let created { pairs.append(("payment_method_data[card][network_token][cryptogram_created]", created)) }
            return pairs
        }
        let first = try await client.call("POST", "/v1/payment_intents", token("AgAAAAAABk4DWZ4C28yUQAAAAAA="))
        #expect(first.status_ == "requires_capture", "\(first.text)")
        let replayed = try await client.call("POST", "/v1/payment_intents", token("AgAAAAAABk4DWZ4C28yUQAAAAAA="))
        #expect(replayed.status == 402)
        #expect(replayed.error?["decline_code"]?.stringValue == "invalid_cryptogram")
        #expect(replayed.error?["payment_intent"]?["last_payment_error"]?["payment_method"]?["card"]?["wallet"]?["type"]?.stringValue == "apple_pay")
        #expect(!replayed.text.contains("AgAAAAAABk4DWZ4C28yUQAAAAAA="), "the cryptogram never comes back")
        // --now is 2026-12-01T10:00:00Z; an hour before is past the ten-minute lifetime.
        let old = try await client.call("POST", "/v1/payment_intents", token("BgAAAAAABk4DWZ4C28yUQAAAAAA=", created: "1796112000"))
        #expect(old.error?["decline_code"]?.stringValue == "expired_cryptogram", "\(old.text)")
        #expect(await server.terminate() == 0)
    }
}
