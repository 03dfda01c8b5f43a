import Foundation
import PayPanel
import Testing

/// `Idempotency-Key` on every POST of `/v1/checkouts`: create, update and cancel under the
/// secret key, and the device's `/pay` under the checkout's client secret, whose keys are the
/// checkout's own (two devices using the same key never meet).
@Suite struct CheckoutRouteIdempotencyTests {
    static func card(_ number: String) -> String {
        #"{"amount":1000,"card":{"number":"\#(number)","exp_month":12,"exp_year":2030}}"#
    }

    @Test func aPayRetriedWithItsKeyGetsTheFirstAnswerAndNoSecondAttempt() async throws {
        let server = try await ServerProcess.start()
        let checkout = try await server.request("POST", "/v1/checkouts", json: "{}")
        let secret = checkout["client_secret"]?.stringValue ?? ""
        let pay = "/v1/checkouts/\(checkout.id)/pay"

        let declined = try await server.request("POST", pay, json: Self.card("4000000000009995"), key: secret, headers: ["Idempotency-Key": "tap-1"])
        #expect(declined.status == 200 && declined["sheet"] == "failure", "\(declined.text)")
        #expect(declined.headers["Idempotent-Replayed"] == nil)
        let retried = try await server.request("POST", pay, json: Self.card("4000000000009995"), key: secret, headers: ["Idempotency-Key": "tap-1"])
        #expect(retried.headers["Idempotent-Replayed"] == "true")
        #expect(retried.text == declined.text)
        let intentID = declined["payment_intent"]?.stringValue ?? ""
        #expect(try await server.request("GET", "/v1/payment_intents/\(intentID)")["attempts"]?.arrayValue?.count == 1)

        // The same key with another card: a mismatch, not a payment.
        let mismatch = try await server.request("POST", pay, json: Self.card("4242424242424242"), key: secret, headers: ["Idempotency-Key": "tap-1"])
        #expect(mismatch.status == 400 && mismatch.errorCode == "idempotency_key_reused", "\(mismatch.text)")
        #expect(!mismatch.text.contains("4242424242424242"))

        let paid = try await server.request("POST", pay, json: Self.card("4242424242424242"), key: secret, headers: ["Idempotency-Key": "tap-2"])
        #expect(paid["sheet"] == "success" && paid["status"] == "paid", "\(paid.text)")
        let paidAgain = try await server.request("POST", pay, json: Self.card("4242424242424242"), key: secret, headers: ["Idempotency-Key": "tap-2"])
        #expect(paidAgain.headers["Idempotent-Replayed"] == "true" && paidAgain["sheet"] == "success")
        #expect(try await server.request("GET", "/v1/payment_intents/\(intentID)")["attempts"]?.arrayValue?.count == 2)

        // Another checkout's device may use the same key: its keys are its own.
        let second = try await server.request("POST", "/v1/checkouts", json: "{}")
        let other = try await server.request(
            "POST", "/v1/checkouts/\(second.id)/pay", json: Self.card("4242424242424242"),
            key: second["client_secret"]?.stringValue ?? "", headers: ["Idempotency-Key": "tap-2"])
        #expect(other.status == 200 && other.headers["Idempotent-Replayed"] == nil && other["sheet"] == "success", "\(other.text)")
        // A bad client secret is refused before the key is looked at, and stores nothing.
        let stranger = try await server.request("POST", pay, json: Self.card("4242424242424242"), key: "co_x_secret_y", headers: ["Idempotency-Key": "tap-3"])
        #expect(stranger.status == 401)
        #expect(await server.terminate() == 0)
    }

    @Test func createUpdateAndCancelReplayUnderTheSecretKey() async throws {
        let server = try await ServerProcess.start()
        let created = try await server.request("POST", "/v1/checkouts", json: #"{"order_reference":"order-7"}"#, headers: ["Idempotency-Key": "co-1"])
        let replayed = try await server.request("POST", "/v1/checkouts", json: #"{"order_reference":"order-7"}"#, headers: ["Idempotency-Key": "co-1"])
        #expect(created.status == 200 && replayed.headers["Idempotent-Replayed"] == "true" && replayed.id == created.id, "\(replayed.text)")

        let update = #"{"amount_options":[1000,2000,5000]}"#
        let updated = try await server.request("POST", "/v1/checkouts/\(created.id)", json: update, headers: ["Idempotency-Key": "co-1-up"])
        let updatedAgain = try await server.request("POST", "/v1/checkouts/\(created.id)", json: update, headers: ["Idempotency-Key": "co-1-up"])
        #expect(updated.status == 200 && updatedAgain.headers["Idempotent-Replayed"] == "true", "\(updatedAgain.text)")

        let canceled = try await server.request("POST", "/v1/checkouts/\(created.id)/cancel", json: "{}", headers: ["Idempotency-Key": "co-1-x"])
        let canceledAgain = try await server.request("POST", "/v1/checkouts/\(created.id)/cancel", json: "{}", headers: ["Idempotency-Key": "co-1-x"])
        #expect(canceled["status"] == "canceled" && canceledAgain.headers["Idempotent-Replayed"] == "true" && canceledAgain["status"] == "canceled")
        // Without the key a second cancel is a state conflict, not a replay.
        #expect(try await server.request("POST", "/v1/checkouts/\(created.id)/cancel", json: "{}").status == 409)
        #expect(await server.terminate() == 0)
    }
}
