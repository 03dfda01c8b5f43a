import Foundation
import PayPanel
import PayPanelDemo
import Testing
import TestSupport

/// `POST /v1/payment_intents/{id}/confirm` with `payment_method[type]=apple_pay`: a token sealed
/// with PayPanel's test identity pays under `serve --test-root`, is refused (and says how to
/// accept it) without, and a token for another amount or a replayed one is a 400 naming the token.
@Suite struct ConfirmApplePayTests {
    static func sealedToken(minorUnits: Int64, card: String = "4242424242424242") throws -> String {
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, clock: SystemClock())
        let details = TokenCardDetails(
            dpan: try CardNumber(card), expiry: try CardExpiry(month: 12, year: 2029),
            amount: Amount(minorUnits: minorUnits, currency: try Currency(code: "USD")), eci: "05")
        return JSONWriter.string(try sealer.seal(details, to: ApplePayTestKeys.ecMerchant.certificate).paymentTokenJSON, style: .compact)
    }

    static func body(_ token: String) -> String {
        #"{"payment_method":{"type":"apple_pay","token":\#(token)}}"#
    }

    @Test func aSealedTokenPaysUnderTestRootAndMismatchesAndReplaysAreRefused() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let id = try await server.createIntent(amount: 1000, capture: "manual")
        let token = try Self.sealedToken(minorUnits: 1000)
        let paid = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: Self.body(token))
        #expect(paid.status == 200, "\(paid.text)")
        #expect(paid["status"] == "requires_capture" && paid["amount_capturable"] == 1000)
        let attempt = paid["attempts"]?.arrayValue?.first
        #expect(attempt?["source"] == "apple_pay" && attempt?["card"]?["last4"] == "4242", "\(paid.text)")

        // The same token again: its transactionId was used.
        let other = try await server.createIntent(amount: 1000)
        let replayed = try await server.request("POST", "/v1/payment_intents/\(other)/confirm", json: Self.body(token))
        #expect(replayed.status == 400, "\(replayed.text)")
        #expect(replayed.errorCode?.contains("replay") == true, "\(replayed.text)")

        // A token for 20.00 on an intent of 10.00: refused before any attempt.
        let mismatched = try await server.request("POST", "/v1/payment_intents/\(other)/confirm", json: Self.body(try Self.sealedToken(minorUnits: 2000)))
        #expect(mismatched.status == 400 && mismatched.errorCode == "token_amount_mismatch", "\(mismatched.text)")
        #expect(mismatched.json["error"]?["param"] == "payment_method[token]")
        let untouched = try await server.request("GET", "/v1/payment_intents/\(other)")
        #expect(untouched["status"] == "requires_payment_method" && untouched["attempts"]?.arrayValue?.isEmpty == true, "\(untouched.text)")

        let missing = try await server.request("POST", "/v1/payment_intents/\(other)/confirm", json: #"{"payment_method":{"type":"apple_pay"}}"#)
        #expect(missing.status == 400 && missing.errorCode == "parameter_missing", "\(missing.text)")
        let extra = try await server.request(
            "POST", "/v1/payment_intents/\(other)/confirm", json: #"{"payment_method":{"type":"apple_pay","token":{},"number":"4242424242424242"}}"#)
        #expect(extra.status == 400 && extra.errorCode == "parameter_unknown", "\(extra.text)")
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains("4242424242424242"))
    }

    @Test func withoutTestRootATestTokenIsRefusedAndTheErrorSaysWhy() async throws {
        let server = try await ServerProcess.start()
        let id = try await server.createIntent(amount: 1000)
        let refused = try await server.request("POST", "/v1/payment_intents/\(id)/confirm", json: Self.body(try Self.sealedToken(minorUnits: 1000)))
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.errorCode?.hasPrefix("token_") == true, "\(refused.text)")
        #expect(refused.json["error"]?["message"]?.stringValue?.contains("--test-root") == true, "\(refused.text)")
        #expect(try await server.request("GET", "/v1/payment_intents/\(id)")["status"] == "requires_payment_method")
        #expect(await server.terminate() == 0)
    }
}
