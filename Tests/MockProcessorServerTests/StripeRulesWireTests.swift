import Foundation
@testable import MockProcessorServer
import PayPanel
import Testing
import TestSupport

/// Updates, amounts and API versions as Stripe's test mode answers them, over the wire: what may
/// change in which status, the codes an SDK's exception carries, and the `Stripe-Version` a
/// client asked for.
@Suite struct StripeRulesWireTests {
    @Test func anUnconfirmedIntentTakesEveryUpdateAndAConfirmedOneOnlyWordsAndMetadata() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("updates")
        _ = server
        let created = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "1000"), ("currency", "usd"), ("metadata[order]", "o-1"), ("metadata[keep]", "k"), ("metadata[drop]", "d"),
        ])
        #expect(created.status == 200, "\(created.text)")
        let updated = try await client.call("POST", "/v1/payment_intents/\(created.id)", [
            ("amount", "2500"), ("currency", "eur"), ("capture_method", "manual"), ("description", "two tickets"),
            ("receipt_email", "payer@example.com"), ("metadata[order]", "o-2"), ("metadata[drop]", ""), ("metadata[new]", "n"),
        ])
        #expect(updated.status == 200, "\(updated.text)")
        #expect(updated["amount"]?.int64Value == 2500 && updated["currency"]?.stringValue == "eur")
        #expect(updated["capture_method"]?.stringValue == "manual" && updated["description"]?.stringValue == "two tickets")
        #expect(updated["receipt_email"]?.stringValue == "payer@example.com")
        #expect(updated["metadata"] == .orderedObject([("order", "o-2"), ("keep", "k"), ("new", "n")]), "set in place, unset, added: \(updated.text)")
        #expect(try await client.call("GET", "/v1/payment_intents/\(created.id)")["amount"]?.int64Value == 2500, "kept")

        let withCard = try await client.call("POST", "/v1/payment_intents/\(created.id)", [("payment_method", "pm_card_visa")])
        #expect(withCard.status_ == "requires_confirmation", "\(withCard.text)")
        let confirmed = try await client.call("POST", "/v1/payment_intents/\(created.id)/confirm")
        #expect(confirmed.status_ == "requires_capture", "\(confirmed.text)")

        for (name, value) in [("amount", "3000"), ("currency", "usd"), ("capture_method", "automatic"), ("payment_method", "pm_card_mastercard")] {
            let refused = try await client.call("POST", "/v1/payment_intents/\(created.id)", [(name, value)])
            #expect(refused.status == 400, "\(name): \(refused.text)")
            #expect(refused.error?["code"]?.stringValue == "payment_intent_unexpected_state" && refused.error?["param"]?.stringValue == name)
        }
        let words = try await client.call("POST", "/v1/payment_intents/\(created.id)", [("description", ""), ("metadata", "")])
        #expect(words.status == 200 && words["description"] == .null && words["metadata"] == .orderedObject([]), "\(words.text)")
        #expect(try await client.call("POST", "/v1/payment_intents/\(created.id)", [("colour", "red")]).error?["param"]?.stringValue == "colour")
        #expect(try await client.call("POST", "/v1/payment_intents/\(created.id)", [("receipt_email", "not an address")]).error?["code"]?.stringValue == "email_invalid")
        #expect(try await client.call("POST", "/v1/payment_intents/pi_missing", [("description", "x")]).status == 404)
    }

    @Test func aRefundTakesMetadataOnlyMergedAsStripeMergesIt() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("refundupdate")
        _ = server
        let paid = try #require(try await client.pay(2000, capture: "automatic").reply)
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("metadata[a]", "1")])
        #expect(refund.status == 200, "\(refund.text)")
        let updated = try await client.call("POST", "/v1/refunds/\(refund.id)", [("metadata[b]", "2"), ("metadata[a]", "")])
        #expect(updated["metadata"] == .orderedObject([("b", "2")]), "\(updated.text)")
        #expect(try await client.call("GET", "/v1/refunds/\(refund.id)")["metadata"] == .orderedObject([("b", "2")]))
        let amount = try await client.call("POST", "/v1/refunds/\(refund.id)", [("amount", "5")])
        #expect(amount.status == 400 && amount.error?["param"]?.stringValue == "amount", "only metadata: \(amount.text)")
        #expect(try await client.call("POST", "/v1/refunds/re_missing", [("metadata[a]", "1")]).status == 404)
    }

    /// Parameters a Stripe client sends are honoured or refused, never taken and dropped.
    @Test func automaticPaymentMethodsNeedAReturnURLAndCaptureMergesMetadata() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("apm")
        _ = server
        let base = [("amount", "1000"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("automatic_payment_methods[enabled]", "true")]
        let refused = try await client.call("POST", "/v1/payment_intents", base)
        #expect(refused.status == 400 && refused.error?["param"]?.stringValue == "return_url", "\(refused.text)")
        let withURL = try await client.call("POST", "/v1/payment_intents", base + [("return_url", "https://shop.example/done")])
        #expect(withURL.status == 200 && withURL["automatic_payment_methods"]?["allow_redirects"]?.stringValue == "always", "\(withURL.text)")
        let never = try await client.call("POST", "/v1/payment_intents", base + [("automatic_payment_methods[allow_redirects]", "never")])
        #expect(never.status == 200, "\(never.text)")
        let later = try await client.call("POST", "/v1/payment_intents", [("amount", "1000"), ("currency", "usd"), ("automatic_payment_methods[enabled]", "true")])
        #expect(try await client.call("POST", "/v1/payment_intents/\(later.id)/confirm", [("payment_method", "pm_card_visa")]).error?["param"]?.stringValue == "return_url")
        #expect(try await client.call("POST", "/v1/payment_intents", [("amount", "1000"), ("currency", "usd"), ("payment_method_types[]", "card")]).status == 200)
        let sepa = try await client.call("POST", "/v1/payment_intents", [("amount", "1000"), ("currency", "eur"), ("payment_method_types[]", "sepa_debit")])
        #expect(sepa.error?["param"]?.stringValue == "payment_method_types", "\(sepa.text)")

        let held = try #require(try await client.pay(1500, metadata: ["order": "o-1"]).reply)
        let captured = try await client.call("POST", "/v1/payment_intents/\(held.id)/capture", [("metadata[shipped]", "yes")])
        #expect(captured["metadata"] == .orderedObject([("order", "o-1"), ("shipped", "yes")]), "\(captured.text)")
    }

    /// Generated from the minimum table: one minor unit under each currency's minimum is
    /// `amount_too_small`, the minimum itself is taken; the eight-digit ceiling holds for all.
    @Test func amountsAreHeldToStripesBoundsWithStripesCodes() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("amounts")
        _ = server
        for (code, minimum) in StripeAmount.minimums.sorted(by: { $0.key < $1.key }) {
            let currency = code.lowercased()
            let under = try await client.call("POST", "/v1/payment_intents", [("amount", String(minimum - 1)), ("currency", currency)])
            #expect(under.status == 400 && under.error?["code"]?.stringValue == "amount_too_small" && under.error?["param"]?.stringValue == "amount",
                    "\(currency) \(minimum - 1): \(under.text)")
            let least = try await client.call("POST", "/v1/payment_intents", [("amount", String(minimum)), ("currency", currency)])
            #expect(least.status == 200, "\(currency) \(minimum): \(least.text)")
        }
        let usd = try await client.call("POST", "/v1/payment_intents", [("amount", "49"), ("currency", "usd")])
        #expect(usd.error?["message"]?.stringValue == "Amount must be at least 0.50 usd.")
        #expect(usd.error?["doc_url"]?.stringValue == "https://stripe.com/docs/error-codes/amount-too-small")
        let large = try await client.call("POST", "/v1/payment_intents", [("amount", "100000000"), ("currency", "jpy")])
        #expect(large.error?["code"]?.stringValue == "amount_too_large", "\(large.text)")
        for text in ["12.5", "-5", "ten", "1e3"] {
            let invalid = try await client.call("POST", "/v1/payment_intents", [("amount", text), ("currency", "usd")])
            #expect(invalid.error?["code"]?.stringValue == "parameter_invalid_integer" && invalid.error?["param"]?.stringValue == "amount", "\(text): \(invalid.text)")
        }
        let missing = try await client.call("POST", "/v1/payment_intents", [("currency", "usd")])
        #expect(missing.error?["code"]?.stringValue == "parameter_missing" && missing.error?["param"]?.stringValue == "amount")
        let unchanged = try await client.call("POST", "/v1/payment_intents", [("amount", "50"), ("currency", "usd")])
        let shrunk = try await client.call("POST", "/v1/payment_intents/\(unchanged.id)", [("amount", "10")])
        #expect(shrunk.error?["code"]?.stringValue == "amount_too_small", "an update is held to the same bounds: \(shrunk.text)")
    }

    /// Every version the mock knows is taken and echoed; the default capture method follows the
    /// version; anything else is refused before any work.
    @Test func stripeVersionIsCheckedEchoedAndDecidesTheDefaults() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("versions")
        _ = server
        for version in StripeAPIVersion.known {
            let created = try await client.call("POST", "/v1/payment_intents", [("amount", "500"), ("currency", "usd")], headers: ["Stripe-Version": version])
            #expect(created.status == 200 && created.headers["Stripe-Version"] == version, "\(version): \(created.text)")
            let expected = version >= "2024-04-10" ? "automatic_async" : "automatic"
            #expect(created["capture_method"]?.stringValue == expected, "\(version)")
        }
        let plain = try await client.call("POST", "/v1/payment_intents", [("amount", "500"), ("currency", "usd")])
        #expect(plain.headers["Stripe-Version"] == StripeAPIVersion.known.last && plain["capture_method"]?.stringValue == "automatic_async")
        let before = try await client.call("GET", "/v1/payment_intents").json["data"]?.arrayValue?.count
        for version in ["2024-13-01", "2019-12-03", "2025-03-31.acacia", "latest", ""] {
            let refused = try await client.call("POST", "/v1/payment_intents", [("amount", "500"), ("currency", "usd")], headers: ["Stripe-Version": version])
            #expect(refused.status == 400 && refused.error?["type"]?.stringValue == "invalid_request_error", "\(version): \(refused.text)")
            #expect(refused.error?["message"]?.stringValue?.hasPrefix("Invalid Stripe API version") == true, "\(version)")
        }
        #expect(try await client.call("GET", "/v1/payment_intents").json["data"]?.arrayValue?.count == before, "a refused version did no work")
    }
}
