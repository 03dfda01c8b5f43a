import Foundation
import PayPanel
import Testing

/// `Idempotency-Key` on POSTs: replay, mismatch, in use.
@Suite struct IdempotencyTests {
    @Test func replayMismatchAndValidationFailuresStoreNothing() async throws {
        let server = try await ServerProcess.start()
        let body = #"{"amount":1500,"currency":"EUR"}"#
        let first = try await server.request("POST", "/v1/payment_intents", json: body, headers: ["Idempotency-Key": "create-1"])
        #expect(first.status == 200)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        let replay = try await server.request("POST", "/v1/payment_intents", json: body, headers: ["Idempotency-Key": "create-1"])
        #expect(replay.status == 200)
        #expect(replay.headers["Idempotent-Replayed"] == "true")
        #expect(replay.id == first.id)
        let list = try await server.request("GET", "/v1/payment_intents")
        #expect(list["data"]?.arrayValue?.count == 1)

        let mismatch = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1600,"currency":"EUR"}"#,
                                                headers: ["Idempotency-Key": "create-1"])
        #expect(mismatch.status == 400)
        #expect(mismatch.errorType == "idempotency_error")

        // A validation failure stores nothing: the key then works for a good request.
        let invalid = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":-1,"currency":"EUR"}"#,
                                               headers: ["Idempotency-Key": "create-2"])
        #expect(invalid.status == 400)
        let valid = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":-1,"currency":"EUR"}"#.replacingOccurrences(of: "-1", with: "100"),
                                             headers: ["Idempotency-Key": "create-2"])
        #expect(valid.status == 200)
        #expect(valid.headers["Idempotent-Replayed"] == nil)

        // A decline is stored and replayed as the same 402.
        let id = try await server.createIntent()
        let declined = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4000000000000002"),
                                                headers: ["Idempotency-Key": "pay-1"])
        #expect(declined.status == 402)
        let declinedAgain = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4000000000000002"),
                                                     headers: ["Idempotency-Key": "pay-1"])
        #expect(declinedAgain.status == 402)
        #expect(declinedAgain.headers["Idempotent-Replayed"] == "true")
        #expect(declinedAgain.errorCode == "card_declined")
        let fetched = try await server.request("GET", "/v1/payment_intents/\(id)")
        #expect(fetched["attempts"]?.arrayValue?.count == 1)
        #expect(await server.terminate() == 0)
    }

    /// A duplicate that arrives while the first request still waits at the processor is a 409
    /// `idempotency_key_in_use`; afterwards the key replays the first's answer.
    ///
    /// The first is held by a slow processor answer (`SLOW_<n>S`). On a loaded machine running
    /// the whole suite the duplicate has sometimes come after it, even at 15 s; then its answer
    /// is the first's, replayed, and the collision was not tried: the test tries again on a new
    /// intent with a longer wait. Any other answer fails it, and so does never colliding.
    @Test func aDuplicateWhileTheFirstRunsIs409() async throws {
        let server = try await ServerProcess.start()
        var collided = false
        for seconds in [5, 15, 25] where !collided {  // all under the 30 s processor timeout
            let id = try await server.createIntent()
            let key = "slow-\(seconds)"
            let body = ServerProcess.card("4242424242424242", holder: "SLOW_\(seconds)S")
            async let first = server.request("POST", "/v1/payment_intents/\(id)/confirm", json: body, headers: ["Idempotency-Key": key])
            // The key is claimed (committed) before the attempt opens: once the intent has moved,
            // the first request is certainly running (its answer comes seconds later).
            try await server.waitUntilMoved(from: "requires_payment_method", id)
            let duplicate = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: body, headers: ["Idempotency-Key": key])
            let firstResponse = try await first
            #expect(firstResponse.status == 200, "\(firstResponse.text)")
            if duplicate.headers["Idempotent-Replayed"] == "true" {
                #expect(duplicate.text == firstResponse.text, "a late duplicate replays the first's answer")
                continue
            }
            collided = true
            #expect(duplicate.status == 409 && duplicate.errorCode == "idempotency_key_in_use", "\(duplicate.text)")
            let after = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: body, headers: ["Idempotency-Key": key])
            #expect(after.headers["Idempotent-Replayed"] == "true")
            #expect(after["status"] == firstResponse["status"])
        }
        #expect(collided, "the duplicate never arrived while the first was still running, even at 25 s")
        #expect(await server.terminate() == 0)
    }

    /// A key stored by the previous program — `{"status", "body"}`, the route's JSON (stored
    /// result version 0) — replays the very status and bytes the first request got, as does a
    /// key stored now (a typed `http_response`).
    @Test func aKeyStoredInTheOldFormatReplaysTheSameBytes() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent()
        let card = ServerProcess.card("4000000000000002")
        let declined = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: card, headers: ["Idempotency-Key": "old-1"])
        #expect(declined.status == 402)
        let database = try Database(path: server.databasePath)
        let typed = try #require(try database.queryFirst("SELECT response FROM idempotency_keys WHERE key = 'old-1'") { $0.string(0) })
        #expect(typed.contains(#""kind":"http_response""#) && typed.contains(#""resultVersion":1"#), "\(typed)")
        let replayOfTyped = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: card, headers: ["Idempotency-Key": "old-1"])
        #expect(replayOfTyped.status == 402 && replayOfTyped.text == declined.text)

        let old = JSONValue.orderedObject([("status", .number(402)), ("body", try JSONParser().parse(declined.text))])
        try database.execute("UPDATE idempotency_keys SET response = ? WHERE key = 'old-1'", [JSONWriter.string(old)])
        let replayOfOld = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: card, headers: ["Idempotency-Key": "old-1"])
        #expect(replayOfOld.status == 402 && replayOfOld.headers["Idempotent-Replayed"] == "true")
        #expect(replayOfOld.text == declined.text)
        #expect(await server.terminate() == 0)
    }
}
