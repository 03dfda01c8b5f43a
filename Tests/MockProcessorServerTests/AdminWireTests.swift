import Foundation
import PayPanel
import Testing
import TestSupport

/// The test endpoints and the isolation of accounts (one per test key).
@Suite("processor serve: accounts, reset, chains, test clock, triggers, limits")
struct AdminWireTests {
    @Test("Each sk_test_ key is its own account: objects, lists, searches and ledgers are not shared; reset clears one account or all")
    func isolationAndReset() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let alice = StripeTestClient(port: server.port, key: "sk_test_alice")
        let bob = StripeTestClient(port: server.port, key: "sk_test_bob")
        // The same idempotency key and attempt id in both accounts: no collision.
        let paidByAlice = try #require(try await alice.pay(metadata: ["attempt_id": "att_1"], idempotencyKey: "same-key").reply)
        let paidByBob = try #require(try await bob.pay(metadata: ["attempt_id": "att_1"], idempotencyKey: "same-key").reply)
        #expect(paidByAlice.status == 200 && paidByBob.status == 200)
        #expect(paidByAlice.id != paidByBob.id)
        #expect(paidByBob.headers["Idempotent-Replayed"] == nil)

        let crossRead = try await bob.call("GET", "/v1/payment_intents/\(paidByAlice.id)")
        #expect(crossRead.status == 404)
        #expect(crossRead.error?["code"]?.stringValue == "resource_missing")
        #expect(try await bob.search(attempt: "att_1").compactMap { $0["id"]?.stringValue } == [paidByBob.id])
        #expect(try await alice.call("GET", "/_mock/ledger")["data"]?.arrayValue?.count == 1)
        #expect(try await alice.call("GET", "/_mock/ledger")["data"]?.arrayValue?.first?["reference"]?.stringValue == "\(paidByAlice.id)/1")

        let reset = try await alice.call("POST", "/_mock/reset")
        #expect(reset.status == 200, "\(reset.text)")
        #expect(try await alice.call("GET", "/v1/payment_intents/\(paidByAlice.id)").status == 404)
        #expect(try await alice.call("GET", "/_mock/ledger")["data"]?.arrayValue?.isEmpty == true)
        #expect(try await bob.call("GET", "/v1/payment_intents/\(paidByBob.id)").status == 200, "bob's account is untouched")
        #expect(try await bob.call("GET", "/_mock/ledger")["data"]?.arrayValue?.count == 1)

        let all = try await alice.call("POST", "/_mock/reset", [("scope", "all")])
        #expect(all["scope"]?.stringValue == "all")
        #expect(try await bob.call("GET", "/v1/payment_intents/\(paidByBob.id)").status == 404)
        #expect(try await bob.call("GET", "/_mock/ledger")["data"]?.arrayValue?.isEmpty == true)
        let badScope = try await alice.call("POST", "/_mock/reset", [("scope", "everything")])
        #expect(badScope.status == 400)
        #expect(await server.terminate() == 0)
    }

    @Test("A per-card scripted chain: each authorization with the card takes the next step, then the last repeats")
    func cardChains() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_card_chains")
        let other = StripeTestClient(port: server.port, key: "sk_test_other_account")
        let set = try await client.call("POST", "/_mock/chains", [("card", "4242424242424242"), ("chain", "INSUFFICIENT_FUNDS|GENERIC_DECLINE|APPROVE")])
        #expect(set.status == 200, "\(set.text)")
        #expect(!set.text.contains("4242424242424242"))
        var codes: [String] = []
        for _ in 0..<4 {
            let reply = try #require(try await client.pay(method: "4242424242424242").reply)
            codes.append(reply.error?["decline_code"]?.stringValue ?? reply.status_)
        }
        #expect(codes == ["insufficient_funds", "generic_decline", "requires_capture", "requires_capture"])
        #expect(try await other.pay(method: "4242424242424242").reply?.status_ == "requires_capture", "chains belong to one account")
        let bad = try await client.call("POST", "/_mock/chains", [("card", "4242424242424242"), ("chain", "APPROVE|NOPE")])
        #expect(bad.status == 400)
        #expect(bad.error?["param"]?.stringValue == "chain")
        #expect(await server.terminate() == 0)
    }

    @Test("The test clock: advancing one account 8 days expires its authorization (capture refused) and not another account's")
    func testClock() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_clock")
        let other = StripeTestClient(port: server.port, key: "sk_test_clock_other")
        let mine = try #require(try await client.pay().reply)
        let theirs = try #require(try await other.pay().reply)
        let advanced = try await client.call("POST", "/_mock/clock/advance", [("seconds", String(8 * 24 * 3600))])
        #expect(advanced.status == 200, "\(advanced.text)")
        let late = try await client.call("POST", "/v1/payment_intents/\(mine.id)/capture")
        #expect(late.status == 400, "\(late.text)")
        #expect(late.error?["code"]?.stringValue == "charge_expired_for_capture")
        let inTime = try await other.call("POST", "/v1/payment_intents/\(theirs.id)/capture")
        #expect(inTime.status_ == "succeeded", "\(inTime.text)")
        #expect(await server.terminate() == 0)
    }

    @Test("GET /_mock/triggers lists the trigger table, Stripe's test payment methods and the network faults")
    func triggerTable() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_triggers")
        let table = try await client.call("GET", "/_mock/triggers")
        let triggers = table["triggers"]?.arrayValue?.compactMap { $0["trigger"]?.stringValue } ?? []
        #expect(triggers.contains("HTTP_500_AFTER") && triggers.contains("TIMEOUT_THEN_APPROVED"))
        let methods = table["payment_methods"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(methods.contains("pm_card_visa") && methods.contains("pm_card_chargeDeclinedStolenCard"))
        #expect(table["network_faults"]?.arrayValue?.count == 2)
        #expect(await server.terminate() == 0)
    }

    @Test("Limits: a body over 256 KiB is 413, too many or too deep parameters are 400, all in Stripe's envelope; the server keeps serving")
    func limits() async throws {
        let directory = try TemporaryDirectory("procserve")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_limits")
        let huge = try await client.call("POST", "/v1/payment_intents", rawBody: Array(repeating: UInt8(ascii: "a"), count: 300 * 1024))
        #expect(huge.status == 413)
        #expect(huge.error?["type"]?.stringValue == "invalid_request_error")
        let many = (0..<300).map { ("metadata[k\($0)]", "v") }
        let tooMany = try await client.call("POST", "/v1/payment_intents", many)
        #expect(tooMany.status == 400)
        #expect(tooMany.error?["message"]?.stringValue?.contains("256") == true)
        let deep = try await client.call("POST", "/v1/payment_intents", [("a[b][c][d][e][f][g]", "1")])
        #expect(deep.status == 400)
        let deepJSON = String(repeating: #"{"a":"#, count: 20) + "1" + String(repeating: "}", count: 20)
        let deepJSONReply = try await client.call("POST", "/v1/payment_intents", rawBody: Array(deepJSON.utf8), headers: ["Content-Type": "application/json"])
        #expect(deepJSONReply.status == 400)
        let json = try await client.call(
            "POST", "/v1/payment_intents", rawBody: Array(#"{"amount":700,"currency":"usd","confirm":true,"payment_method":"pm_card_amex","capture_method":"manual"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        #expect(json.status_ == "requires_capture", "JSON bodies are accepted too: \(json.text)")
        #expect(await server.terminate() == 0)
    }
}
