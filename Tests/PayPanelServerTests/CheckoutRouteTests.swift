import Foundation
import PayPanel
import PayPanelDemo
import Testing
import TestSupport

/// `/v1/checkouts` over the wire: the seed checkout from `{}`, the device's pay call with the
/// client secret (which can do nothing else), declines answered as a sheet failure, an Apple Pay
/// token sealed with the test identity, and updates.
@Suite struct CheckoutRouteTests {
    static let card = #"{"number":"4242424242424242","exp_month":12,"exp_year":2030,"holder_name":"Ada"}"#

    @Test func anEmptyBodyCreatesTheSeedCheckoutWhichTheDeviceCanPayWithACard() async throws {
        let server = try await ServerProcess.start()
        let created = try await server.request("POST", "/v1/checkouts", json: "{}")
        #expect(created.status == 200, "\(created.text)")
        #expect(created["object"] == "checkout" && created["status"] == "open")
        #expect(created["amount_options"] == [500, 1000, 2000])
        #expect(created["payment_requests"]?.arrayValue?.count == 3)
        #expect(created["push_payload"]?["aps"] != nil)
        let secret = created["client_secret"]?.stringValue ?? ""
        #expect(secret.hasPrefix("\(created.id)_secret_"))

        // The client secret pays this checkout and does nothing else.
        #expect(try await server.request("GET", "/v1/payment_intents", key: secret).status == 401)
        #expect(try await server.request("GET", "/v1/checkouts/\(created.id)", key: secret).status == 401)
        let other = try await server.request("POST", "/v1/checkouts", json: "{}")
        let wrongCheckout = try await server.request("POST", "/v1/checkouts/\(other.id)/pay", json: #"{"amount":1000,"card":\#(Self.card)}"#, key: secret)
        #expect(wrongCheckout.status == 401)
        #expect(try await server.request("POST", "/v1/checkouts/\(created.id)/pay", json: #"{"amount":1000,"card":\#(Self.card)}"#).status == 401)

        let notOffered = try await server.request("POST", "/v1/checkouts/\(created.id)/pay", json: #"{"amount":700,"card":\#(Self.card)}"#, key: secret)
        #expect(notOffered.status == 400 && notOffered.errorCode == "amount_not_offered", "\(notOffered.text)")

        let declined = try await server.request(
            "POST", "/v1/checkouts/\(created.id)/pay",
            json: #"{"amount":1000,"card":{"number":"4000000000009995","exp_month":12,"exp_year":2030}}"#, key: secret)
        #expect(declined.status == 200 && declined["sheet"] == "failure" && declined["status"] == "open", "\(declined.text)")
        #expect(!declined.text.contains("4000000000009995"))

        let paid = try await server.request("POST", "/v1/checkouts/\(created.id)/pay", json: #"{"amount":1000,"card":\#(Self.card)}"#, key: secret)
        #expect(paid.status == 200 && paid["sheet"] == "success" && paid["status"] == "paid", "\(paid.text)")
        let intentID = paid["payment_intent"]?.stringValue ?? ""
        let intent = try await server.request("GET", "/v1/payment_intents/\(intentID)")
        #expect(intent["status"] == "succeeded" && intent["amount"] == 1000)
        #expect(try await server.request("GET", "/v1/checkouts/\(created.id)")["status"] == "paid")
        #expect(try await server.request("GET", "/v1/checkouts/\(created.id)")["client_secret"] == nil)
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains(secret) && !server.stderr.contains("4242424242424242"))
    }

    @Test func anApplePayTokenPaysOnlyInTestModeAndInvalidPanelsReportEveryViolation() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let created = try await server.request("POST", "/v1/checkouts", json: #"{"amount_options":[500,1000,2000],"default_segment":2}"#)
        #expect(created.status == 200, "\(created.text)")
        let secret = created["client_secret"]?.stringValue ?? ""
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, clock: SystemClock())
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2029),
            amount: Amount(minorUnits: 2000, currency: try Currency(code: "USD")), eci: "05")
        let token = try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate)
        let body = #"{"amount":2000,"payment_token":\#(JSONWriter.string(token.paymentTokenJSON, style: .compact))}"#
        let paid = try await server.request("POST", "/v1/checkouts/\(created.id)/pay", json: body, key: secret)
        #expect(paid["sheet"] == "success", "\(paid.text)")

        let invalid = try await server.request("POST", "/v1/checkouts", json: #"{"currency":"usd","amount_options":[]}"#)
        #expect(invalid.status == 400, "\(invalid.text)")
        #expect(await server.terminate() == 0)
    }

    @Test func anUpdateKeepsTheThreadAndCancelClosesTheCheckout() async throws {
        let server = try await ServerProcess.start()
        let created = try await server.request("POST", "/v1/checkouts", json: "{}")
        let thread = created["push_payload"]?["aps"]?["thread-id"]
        let updated = try await server.request("POST", "/v1/checkouts/\(created.id)", json: #"{"amount_options":[1000,2000,5000]}"#)
        #expect(updated.status == 200 && updated["amount_options"] == [1000, 2000, 5000], "\(updated.text)")
        #expect(updated["push_payload"]?["aps"]?["thread-id"] == thread)
        let canceled = try await server.request("POST", "/v1/checkouts/\(created.id)/cancel", json: "{}")
        #expect(canceled["status"] == "canceled")
        let again = try await server.request("POST", "/v1/checkouts/\(created.id)", json: #"{"amount_options":[100]}"#)
        #expect(again.status == 409, "\(again.text)")
        #expect(await server.terminate() == 0)
    }
}
