import Foundation
import PayPanel
import Testing
import TestSupport

/// What a crash of `processor serve` keeps: the ledger and each account's snapshot.
@Suite("processor serve: a restart after SIGKILL")
struct RestartWireTests {
    @Test("After SIGKILL and a restart on the same ledger: intents, search, idempotent replays, chains and refunds are all still there; no card number on disk")
    func survivesACrash() async throws {
        let directory = try TemporaryDirectory("procserve-restart")
        let first = try await ServedProcess.processor(directory: directory)
        var client = StripeTestClient(port: first.port, key: "sk_test_restart")
        let paid = try #require(try await client.pay(metadata: ["attempt_id": "att_r1"], idempotencyKey: "att_r1").reply)
        #expect(paid.status_ == "requires_capture", "\(paid.text)")
        let captured = try await client.call("POST", "/v1/payment_intents/\(paid.id)/capture", [("amount_to_capture", "600")])
        #expect(captured.status_ == "succeeded")
        _ = try await client.call("POST", "/_mock/chains", [("card", "5555555555554444"), ("chain", "GENERIC_DECLINE|APPROVE")])
        #expect(try await client.pay(method: "5555555555554444").reply?.status == 402)
        await first.crash()

        let second = try await ServedProcess.processor(directory: directory)
        client = StripeTestClient(port: second.port, key: "sk_test_restart")
        let found = try await client.search(attempt: "att_r1")
        #expect(found.first?["id"]?.stringValue == paid.id)
        #expect(found.first?["status"]?.stringValue == "succeeded")
        #expect(found.first?["amount_received"]?.int64Value == 600)
        // The payment method made from pm_card_visa, as at Stripe (an object id, not the test id).
        let method = try #require(found.first?["payment_method"]?.stringValue)
        #expect(method == paid["payment_method"]?.stringValue && method.hasPrefix("pm_") && method != "pm_card_visa")
        #expect(try await client.call("GET", "/v1/payment_methods/\(method)")["card"]?["last4"]?.stringValue == "4242", "its public face survives")
        let replay = try #require(try await client.pay(metadata: ["attempt_id": "att_r1"], idempotencyKey: "att_r1").reply)
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        #expect(replay.id == paid.id)
        #expect(try await client.pay(method: "5555555555554444").reply?.status_ == "requires_capture", "the chain went on where it was")
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id)])
        #expect(refund["amount"]?.int64Value == 600, "\(refund.text)")
        let ledger = try await client.call("GET", "/_mock/ledger")
        #expect(ledger["data"]?.arrayValue?.filter { $0["operation"]?.stringValue == "authorize" }.count == 3, "no second authorization: \(ledger.text)")

        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) where !name.hasSuffix(".out") && !name.hasSuffix(".err") {
            let bytes = FileManager.default.contents(atPath: directory.file(name)) ?? Data()
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("4242424242424242") && !text.contains("5555555555554444"), "\(name) holds a card number")
        }
        #expect(await second.terminate() == 0)
    }
}
