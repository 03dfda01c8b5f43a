import Foundation
@testable import MockProcessorServer
import PayPanel
import Testing
import TestSupport

/// Charges, PaymentMethods and Customers as objects, and `expand[]`, over the wire; and every
/// object the mock serves carries every field of Stripe's published example of it.
@Suite struct StripeObjectsWireTests {
    @Test func everyAttemptHasACharge_andTheChargeFollowsItsIntent() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("charges")
        _ = server
        let declined = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "1200"), ("currency", "usd"), ("confirm", "true"), ("payment_method", "pm_card_chargeDeclinedInsufficientFunds"),
        ])
        #expect(declined.status == 402)
        let intentID = try #require(declined.error?["payment_intent"]?["id"]?.stringValue)
        let failedID = try #require(declined.error?["payment_intent"]?["latest_charge"]?.stringValue, "a declined attempt has its charge")
        let failed = try await client.call("GET", "/v1/charges/\(failedID)")
        #expect(failed["status"]?.stringValue == "failed" && failed["paid"] == false && failed["failure_code"]?.stringValue == "card_declined", "\(failed.text)")
        #expect(failed["outcome"]?["reason"]?.stringValue == "insufficient_funds" && failed["outcome"]?["type"]?.stringValue == "issuer_declined")

        let confirmed = try await client.call("POST", "/v1/payment_intents/\(intentID)/confirm", [("payment_method", "pm_card_visa")])
        #expect(confirmed.status_ == "succeeded", "\(confirmed.text)")
        let chargeID = try #require(confirmed["latest_charge"]?.stringValue)
        #expect(chargeID != failedID)
        var charge = try await client.call("GET", "/v1/charges/\(chargeID)")
        #expect(charge["status"]?.stringValue == "succeeded" && charge["captured"] == true && charge["amount_captured"]?.int64Value == 1200)
        #expect(charge["payment_method"] == confirmed["payment_method"] && charge["payment_method_details"]?["card"]?["last4"]?.stringValue == "4242")
        _ = try await client.call("POST", "/v1/refunds", [("payment_intent", intentID), ("amount", "200")])
        charge = try await client.call("GET", "/v1/charges/\(chargeID)")
        #expect(charge["amount_refunded"]?.int64Value == 200 && charge["refunded"] == false && charge["refunds"]?["data"]?.arrayValue?.count == 1)
        _ = try await client.call("POST", "/v1/refunds", [("payment_intent", intentID)])
        #expect(try await client.call("GET", "/v1/charges/\(chargeID)")["refunded"] == true)

        let listed = try await client.call("GET", "/v1/charges", [("payment_intent", intentID)])
        #expect(listed["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [chargeID, failedID], "newest first: \(listed.text)")
        #expect(try await client.call("GET", "/v1/charges/ch_missing").error?["code"]?.stringValue == "resource_missing")
        // Stripe's charge search fields, some read from the intent and the payment method.
        for (query, expected) in [("status:'failed'", [failedID]), ("refunded:'true' AND payment_method_details.card.last4:'4242'", [chargeID]),
                                  ("amount>=1200 AND -status:'failed'", [chargeID]), ("payment_method_details.card.brand:'amex'", [])] {
            let found = try await client.call("GET", "/v1/charges/search", [("query", query)])
            #expect(found["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == expected, "\(query): \(found.text)")
        }
        let expanded = try await client.call("GET", "/v1/payment_intents/search", [("query", "amount:1200"), ("expand[]", "data.latest_charge")])
        #expect(expanded["data"]?.arrayValue?.first?["latest_charge"]?["id"]?.stringValue == chargeID, "\(expanded.text)")
        #expect(try await client.call("GET", "/v1/charges/search", [("query", "receipt_email:'x'")]).error?["param"]?.stringValue == "query")
        let manual = try #require(try await client.pay(900).reply)
        _ = try await client.call("POST", "/v1/payment_intents/\(manual.id)/cancel")
        let released = try await client.call("GET", "/v1/charges/\(manual["latest_charge"]?.stringValue ?? "")")
        #expect(released["captured"] == false && released["refunded"] == true && released["amount_refunded"]?.int64Value == 900, "\(released.text)")
    }

    @Test func paymentMethodsAndCustomersLinkAsAtStripe() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("customers")
        _ = server
        let customer = try await client.call("POST", "/v1/customers", [("email", "jo@example.com"), ("name", "Jo"), ("metadata[tier]", "gold")])
        #expect(customer.status == 200 && customer.id.hasPrefix("cus_") && customer["email"]?.stringValue == "jo@example.com", "\(customer.text)")
        let method = try await client.call("POST", "/v1/payment_methods", [("type", "card"), ("card[token]", "tok_mastercard")])
        #expect(method.status == 200 && method["card"]?["brand"]?.stringValue == "mastercard" && method["customer"] == .null, "\(method.text)")
        let raw = try await client.call("POST", "/v1/payment_methods", [
            ("type", "card"), ("card[number]", "4242424242424242"), ("card[exp_month]", "8"), ("card[exp_year]", "2031"),
        ])
        #expect(raw["card"]?["last4"]?.stringValue == "4242" && !raw.text.contains("4242424242424242"))
        #expect(try await client.call("POST", "/v1/payment_methods", [("type", "card"), ("card[token]", "tok_nope")]).status == 404)

        let attached = try await client.call("POST", "/v1/payment_methods/\(method.id)/attach", [("customer", customer.id)])
        #expect(attached["customer"]?.stringValue == customer.id)
        let other = try await client.call("POST", "/v1/customers", [("name", "Other")])
        #expect(try await client.call("POST", "/v1/payment_methods/\(method.id)/attach", [("customer", other.id)]).status == 400)
        let updated = try await client.call("POST", "/v1/customers/\(customer.id)", [("invoice_settings[default_payment_method]", method.id), ("name", "")])
        #expect(updated["invoice_settings"]?["default_payment_method"]?.stringValue == method.id && updated["name"] == .null, "\(updated.text)")
        let owned = try await client.call("GET", "/v1/payment_methods", [("customer", customer.id)])
        #expect(owned["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [method.id])

        // An intent for the customer, paid with its payment method; the charge names both.
        let paid = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "800"), ("currency", "usd"), ("customer", customer.id), ("payment_method", method.id), ("confirm", "true"),
        ])
        #expect(paid.status_ == "succeeded" && paid["customer"]?.stringValue == customer.id && paid["payment_method"]?.stringValue == method.id, "\(paid.text)")
        let found = try await client.call("GET", "/v1/payment_intents/search", [("query", "customer:'\(customer.id)'")])
        #expect(found["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [paid.id], "search by customer: \(found.text)")
        let charges = try await client.call("GET", "/v1/charges", [("customer", customer.id)])
        #expect(charges["data"]?.arrayValue?.first?["customer"]?.stringValue == customer.id)
        // setup_future_usage saves the card a request brought to the intent's customer.
        let saved = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "800"), ("currency", "usd"), ("customer", other.id), ("payment_method", "pm_card_visa"), ("confirm", "true"),
            ("setup_future_usage", "off_session"),
        ])
        #expect(try await client.call("GET", "/v1/payment_methods/\(saved["payment_method"]?.stringValue ?? "")")["customer"]?.stringValue == other.id)

        #expect(try await client.call("POST", "/v1/payment_intents", [("amount", "800"), ("currency", "usd"), ("customer", "cus_missing")]).error?["param"]?.stringValue == "customer")
        #expect(try await client.call("GET", "/v1/customers", [("email", "jo@example.com")])["data"]?.arrayValue?.count == 1)
        let deleted = try await client.call("DELETE", "/v1/customers/\(customer.id)")
        #expect(deleted["deleted"] == true)
        #expect(try await client.call("GET", "/v1/customers/\(customer.id)")["deleted"] == true, "a deleted customer says so")
        #expect(try await client.call("GET", "/v1/customers")["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [other.id])
        #expect(try await client.call("GET", "/v1/payment_methods/\(method.id)")["customer"] == .null, "detached with its customer")
        let detachAgain = try await client.call("POST", "/v1/payment_methods/\(method.id)/detach")
        #expect(detachAgain.status == 400, "\(detachAgain.text)")
    }

    @Test func expandReplacesIdsWithObjectsAndRefusesWhatCannotBeExpanded() async throws {
        let (server, client) = try await ServedProcess.processorAndClient("expand")
        _ = server
        let customer = try await client.call("POST", "/v1/customers", [("name", "Ex")])
        let paid = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "700"), ("currency", "usd"), ("customer", customer.id), ("payment_method", "pm_card_visa"), ("confirm", "true"),
            ("expand[]", "latest_charge"), ("expand[]", "payment_method"), ("expand[]", "customer"),
        ])
        #expect(paid["latest_charge"]?["object"]?.stringValue == "charge", "\(paid.text)")
        #expect(paid["payment_method"]?["object"]?.stringValue == "payment_method" && paid["customer"]?["name"]?.stringValue == "Ex")
        let nested = try await client.call("GET", "/v1/payment_intents/\(paid.id)", [("expand[]", "latest_charge.payment_intent.customer")])
        #expect(nested["latest_charge"]?["payment_intent"]?["customer"]?["id"]?.stringValue == customer.id, "\(nested.text)")
        let indexed = try await client.call("GET", "/v1/payment_intents/\(paid.id)", [("expand[0]", "customer"), ("expand[1]", "latest_charge")])
        #expect(indexed["customer"]?["object"]?.stringValue == "customer" && indexed["latest_charge"]?["object"]?.stringValue == "charge",
                "expand[0]=…&expand[1]=…, as the SDKs encode a list: \(indexed.text)")
        let listed = try await client.call("GET", "/v1/payment_intents", [("expand[]", "data.latest_charge")])
        #expect(listed["data"]?.arrayValue?.first?["latest_charge"]?["object"]?.stringValue == "charge")
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("expand[]", "charge")])
        #expect(refund["charge"]?["refunded"] == true, "the refund's own charge, after the refund: \(refund.text)")

        let before = try await client.call("GET", "/v1/payment_intents")["data"]?.arrayValue?.count
        for (path, query) in [("POST", [("amount", "700"), ("currency", "usd"), ("expand[]", "colour")]),
                              ("POST", [("amount", "700"), ("currency", "usd"), ("expand[]", "latest_charge.balance_transaction")]),
                              ("POST", [("amount", "700"), ("currency", "usd"), ("expand[]", "a.b.c.d.e")])] {
            let refused = try await client.call(path, "/v1/payment_intents", query)
            #expect(refused.status == 400 && refused.error?["param"]?.stringValue == "expand", "\(query): \(refused.text)")
        }
        #expect(try await client.call("GET", "/v1/payment_intents")["data"]?.arrayValue?.count == before, "refused before any work")
        #expect(try await client.call("GET", "/v1/payment_intents", [("expand[]", "latest_charge")]).status == 400, "a list expands through data.")
    }

    /// Stripe's published example of each object (github stripe/openapi, fixtures3.json,
    /// vendored in Tests/stripe-objects/ with its commit): every field it has, the mock's object
    /// has, null or of the same JSON type, nested objects alike.
    @Test func everyObjectCarriesEveryFieldOfStripesPublishedExample() async throws {
        let fixtures = try JSONParser().parse(String(contentsOfFile: Self.fixturePath, encoding: .utf8))["resources"]
        let (server, client) = try await ServedProcess.processorAndClient("shapes")
        _ = server
        let customer = try await client.call("POST", "/v1/customers", [("email", "shape@example.com")])
        let paid = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "700"), ("currency", "usd"), ("customer", customer.id), ("payment_method", "pm_card_visa"), ("confirm", "true"),
        ])
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "100")])
        let objects: [(String, JSONValue)] = [
            ("payment_intent", paid.json), ("refund", refund.json), ("customer", customer.json),
            ("charge", try await client.call("GET", "/v1/charges/\(paid["latest_charge"]?.stringValue ?? "")").json),
            ("payment_method", try await client.call("GET", "/v1/payment_methods/\(paid["payment_method"]?.stringValue ?? "")").json),
        ]
        for (name, object) in objects {
            let example = try #require(fixtures?[name], "\(name) in the fixture")
            let problems = Self.differences(example: example, served: object, at: name)
            #expect(problems.isEmpty, "\(name):\n\(problems.joined(separator: "\n"))")
        }
    }

    static var fixturePath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("stripe-objects/stripe-fixtures3-objects.json").path
    }

    /// Each field of `example` missing from `served`, or of another JSON type there (null is
    /// always allowed: Stripe sends null for what is empty), down through nested objects.
    static func differences(example: JSONValue, served: JSONValue, at path: String) -> [String] {
        guard case .object(let expected) = example else { return [] }
        guard case .object(let actual) = served else { return served == .null ? [] : ["\(path): an object in Stripe's example, \(served.typeDescription) here"] }
        var problems: [String] = []
        for (key, value) in expected.members {
            guard let mine = actual[key] else {
                problems.append("\(path).\(key): missing")
                continue
            }
            if mine == .null || value == .null { continue }
            if case .object = value, case .object(let members) = mine, !members.isEmpty {
                // Stripe's example may show one variant of a polymorphic member (`next_action`,
                // `last_payment_error`); the mock's own non-empty object is checked where both agree.
                if ["next_action", "last_payment_error", "source", "transfer_data", "destination_details"].contains(key) { continue }
                problems += differences(example: value, served: mine, at: "\(path).\(key)")
            } else if value.typeDescription != mine.typeDescription, !(value.isEmptyObject || mine.isEmptyObject) {
                problems.append("\(path).\(key): \(value.typeDescription) in Stripe's example, \(mine.typeDescription) here")
            }
        }
        return problems
    }
}

extension JSONValue {
    fileprivate var isEmptyObject: Bool {
        if case .object(let members) = self { return members.isEmpty }
        return false
    }
}
