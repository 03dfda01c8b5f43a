import Foundation
import PayPanel
import Testing
import TestSupport

/// Every object `processor serve` answers with, in its varied states, validated against Stripe's
/// published OpenAPI schema for it (vendored with its source and version in
/// `Tests/stripe-objects/stripe-openapi-schemas.json`; the checker is `StripeSchema`): types,
/// nullability, enums, required members, and no member Stripe's schema does not have.
@Suite struct StripeOpenAPISchemaTests {
    /// Members the mock sends that the published schema does not list, each kept on purpose.
    /// Keep this short: anything else the validation finds is fixed in the mock.
    static let toleratedMembers: [String: String] = [
        // Stripe's own example objects (fixtures3.json, which StripeObjectsWireTests holds the
        // mock to) carry `source: null` on both, as Stripe's API still answers; the OpenAPI
        // spec stopped listing the deprecated member.
        "charge.source": "in Stripe's published example charge; deprecated, dropped from the spec",
        "payment_intent.source": "in Stripe's published example payment intent; deprecated, dropped from the spec",
    ]

    static func validator() throws -> StripeSchema {
        var schema = try StripeSchema.vendored()
        schema.toleratedMembers = toleratedMembers
        return schema
    }

    /// What a run found, object by object, for one failure message listing every problem.
    struct Findings {
        let schema: StripeSchema
        var lines: [String] = []
        var checked = 0
        var tolerated: Set<String> = []

        mutating func check(_ reply: Reply, is name: String, _ label: String, status: Int = 200) {
            if reply.status != status { lines.append("\(label): HTTP \(reply.status), expected \(status): \(reply.text.prefix(300))") }
            add(schema.check(reply.json, against: name, at: label))
        }

        mutating func checkPage(_ reply: Reply, _ kind: String, of item: String, _ label: String, atLeast count: Int = 1) {
            let items = reply["data"]?.arrayValue?.count ?? 0
            if reply.status != 200 || items < count { lines.append("\(label): HTTP \(reply.status) with \(items) items, expected \(count)+: \(reply.text.prefix(300))") }
            add(schema.checkPage(reply.json, of: kind, items: item, at: label))
        }

        mutating func add(_ report: StripeSchema.Report) {
            checked += 1
            lines += report.lines
            tolerated.formUnion(report.tolerated)
        }
    }

    @Test func everyServedObjectValidatesAgainstStripesPublishedSchema() async throws {
        var found = Findings(schema: try Self.validator())
        let (server, client) = try await ServedProcess.processorAndClient("openapi")

        // Customers: created, updated, listed; deleted ones answer as deleted_customer.
        let customer = try await client.call("POST", "/v1/customers", [
            ("email", "schema@example.com"), ("name", "Schema"), ("phone", "+15555550100"), ("description", "vip"), ("metadata[tier]", "gold"),
        ])
        found.check(customer, is: "customer", "customer (created)")
        let method = try await client.call("POST", "/v1/payment_methods", [
            ("type", "card"), ("card[number]", "4242424242424242"), ("card[exp_month]", "8"), ("card[exp_year]", "2031"),
            ("billing_details[name]", "Jo Schema"), ("metadata[source]", "form"),
        ])
        found.check(method, is: "payment_method", "payment_method (card details)")
        found.check(try await client.call("POST", "/v1/payment_methods", [("type", "card"), ("card[token]", "tok_mastercard")]),
                    is: "payment_method", "payment_method (token)")
        found.check(try await client.call("POST", "/v1/payment_methods/\(method.id)/attach", [("customer", customer.id)]),
                    is: "payment_method", "payment_method (attached)")
        found.check(try await client.call("POST", "/v1/customers/\(customer.id)", [("invoice_settings[default_payment_method]", method.id)]),
                    is: "customer", "customer (updated)")
        found.checkPage(try await client.call("GET", "/v1/payment_methods", [("customer", customer.id)]), "list", of: "payment_method", "payment_methods list")

        // Intents through every status the mock reaches.
        let unconfirmed = try await client.call("POST", "/v1/payment_intents", [("amount", "500"), ("currency", "usd"), ("description", "later")])
        found.check(unconfirmed, is: "payment_intent", "payment_intent (requires_payment_method)")
        let declined = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "1200"), ("currency", "usd"), ("confirm", "true"), ("payment_method", "pm_card_chargeDeclinedInsufficientFunds"),
        ])
        found.check(declined, is: "error", "402 card_error", status: 402)
        let declinedID = declined.error?["payment_intent"]?["id"]?.stringValue ?? ""
        let afterDecline = try await client.call("GET", "/v1/payment_intents/\(declinedID)")
        #expect(afterDecline["last_payment_error"]?["type"]?.stringValue == "card_error", "\(afterDecline.text)")
        found.check(afterDecline, is: "payment_intent", "payment_intent (requires_payment_method after a decline)")
        let failedChargeID = afterDecline["latest_charge"]?.stringValue ?? ""
        found.check(try await client.call("GET", "/v1/charges/\(failedChargeID)"), is: "charge", "charge (failed)")

        let challenged = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "900"), ("currency", "usd"), ("confirm", "true"), ("payment_method", "pm_card_threeDSecure2Required"),
        ])
        #expect(challenged.status_ == "requires_action", "\(challenged.text)")
        found.check(challenged, is: "payment_intent", "payment_intent (requires_action)")
        found.check(try await client.call("POST", "/_mock/3ds/\(challenged.id)", [("outcome", "pass")]), is: "payment_intent", "payment_intent (challenge passed)")
        let refusedChallenge = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "900"), ("currency", "usd"), ("confirm", "true"), ("payment_method", "pm_card_authenticationRequired"),
        ])
        found.check(try await client.call("POST", "/_mock/3ds/\(refusedChallenge.id)", [("outcome", "fail")]),
                    is: "error", "402 payment_intent_authentication_failure", status: 402)
        found.check(try await client.call("GET", "/v1/payment_intents/\(refusedChallenge.id)"), is: "payment_intent", "payment_intent (challenge failed)")

        let held = try #require(try await client.pay(1500, holder: "Held Card").reply)
        #expect(held.status_ == "requires_capture", "\(held.text)")
        found.check(held, is: "payment_intent", "payment_intent (requires_capture)")
        found.check(try await client.call("POST", "/v1/payment_intents/\(held.id)/capture", [("amount_to_capture", "1000")]),
                    is: "payment_intent", "payment_intent (captured)")
        let released = try #require(try await client.pay(700).reply)
        found.check(try await client.call("POST", "/v1/payment_intents/\(released.id)/cancel", [("cancellation_reason", "requested_by_customer")]),
                    is: "payment_intent", "payment_intent (canceled)")
        found.check(try await client.call("GET", "/v1/charges/\(released["latest_charge"]?.stringValue ?? "")"), is: "charge", "charge (released authorization)")

        let paid = try await client.call("POST", "/v1/payment_intents", [
            ("amount", "2000"), ("currency", "usd"), ("customer", customer.id), ("payment_method", method.id), ("confirm", "true"),
            ("receipt_email", "schema@example.com"), ("metadata[order]", "o-1"), ("setup_future_usage", "off_session"),
            ("expand[]", "latest_charge"), ("expand[]", "payment_method"), ("expand[]", "customer"),
        ])
        #expect(paid.status_ == "succeeded", "\(paid.text)")
        found.check(paid, is: "payment_intent", "payment_intent (succeeded, expanded)")
        let chargeID = paid["latest_charge"]?["id"]?.stringValue ?? ""

        // Refunds, and the charge they change.
        found.check(try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "500"), ("reason", "requested_by_customer")]),
                    is: "refund", "refund (partial)")
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("metadata[note]", "rest")])
        found.check(refund, is: "refund", "refund (rest)")
        found.check(try await client.call("GET", "/v1/refunds/\(refund.id)"), is: "refund", "refund (retrieved)")
        found.check(try await client.call("GET", "/v1/charges/\(chargeID)", [("expand[]", "payment_intent")]), is: "charge", "charge (refunded, expanded)")
        let refundFails = try #require(try await client.pay(holder: "REFUND_FAIL", capture: "automatic").reply)
        let failedRefund = try await client.call("POST", "/v1/refunds", [("payment_intent", refundFails.id)])
        #expect(failedRefund["status"]?.stringValue == "failed" && failedRefund["failure_reason"]?.stringValue != nil, "\(failedRefund.text)")
        found.check(failedRefund, is: "refund", "refund (failed)")
        let refundAsync = try #require(try await client.pay(holder: "REFUND_ASYNC", capture: "automatic").reply)
        let pendingRefund = try await client.call("POST", "/v1/refunds", [("payment_intent", refundAsync.id), ("amount", "300")])
        #expect(pendingRefund["status"]?.stringValue == "pending", "\(pendingRefund.text)")
        found.check(pendingRefund, is: "refund", "refund (pending)")

        // Lists and search pages: the envelope, and every item against its own schema.
        found.checkPage(try await client.call("GET", "/v1/payment_intents"), "list", of: "payment_intent", "payment_intents list", atLeast: 5)
        found.checkPage(try await client.call("GET", "/v1/payment_intents/search", [("query", "status:'succeeded'"), ("limit", "1")]),
                        "search_result", of: "payment_intent", "payment_intents search")
        found.checkPage(try await client.call("GET", "/v1/charges"), "list", of: "charge", "charges list", atLeast: 3)
        found.checkPage(try await client.call("GET", "/v1/charges/search", [("query", "status:'failed'")]), "search_result", of: "charge", "charges search")
        found.checkPage(try await client.call("GET", "/v1/refunds"), "list", of: "refund", "refunds list", atLeast: 2)
        found.checkPage(try await client.call("GET", "/v1/customers"), "list", of: "customer", "customers list")

        // Deleted customers.
        found.check(try await client.call("DELETE", "/v1/customers/\(customer.id)"), is: "deleted_customer", "deleted_customer (delete)")
        found.check(try await client.call("GET", "/v1/customers/\(customer.id)"), is: "deleted_customer", "deleted_customer (retrieve)")

        // Error envelopes: 400, 404 for an object and for a route.
        found.check(try await client.call("POST", "/v1/payment_intents", [("currency", "usd")]), is: "error", "400 missing param", status: 400)
        found.check(try await client.call("POST", "/v1/payment_intents", [("amount", "100"), ("currency", "usd"), ("colour", "red")]),
                    is: "error", "400 unknown param", status: 400)
        found.check(try await client.call("GET", "/v1/charges/ch_missing"), is: "error", "404 resource_missing", status: 404)
        found.check(try await client.call("GET", "/v1/balance_transactions"), is: "error", "404 unrecognized route", status: 404)

        #expect(found.checked >= 30, "every flow above produced its object")
        #expect(found.tolerated == Set(Self.toleratedMembers.keys), "an allow-list entry no served object needs any more is to be removed")
        #expect(found.lines.isEmpty, "\(found.lines.count) discrepancies with Stripe's OpenAPI schema:\n\(found.lines.joined(separator: "\n"))")
        #expect(await server.terminate() == 0)
    }

    /// The checker can fail: deliberately wrong objects are refused, each with its path.
    @Test func theValidatorRejectsWrongObjectsNamingThePath() throws {
        let schema = try Self.validator()
        func problems(_ json: String, _ name: String) throws -> [String] {
            schema.check(try JSONParser().parse(json), against: name, at: name).lines
        }
        let refund = #"{"id": "re_1", "object": "refund", "amount": 100, "created": 1, "currency": "usd"}"#
        #expect(try problems(refund, "refund").isEmpty, "a minimal valid refund passes")

        let cases: [(json: String, name: String, expected: String)] = [
            (#"{"id": "re_1", "object": "refund", "amount": "100", "created": 1, "currency": "usd"}"#, "refund", "refund.amount: a string, where Stripe's schema has integer"),
            (#"{"id": "re_1", "object": "refund", "amount": 1.5, "created": 1, "currency": "usd"}"#, "refund", "refund.amount: 1.5 is not an integer"),
            (#"{"id": "re_1", "object": "refund", "created": 1, "currency": "usd"}"#, "refund", "refund.amount: missing"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "USD"}"#, "refund", "refund.currency: \"USD\" is not a lower-case"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "usd", "colour": "red"}"#, "refund", "refund.colour: not in Stripe's refund schema"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "usd", "reason": "bored"}"#, "refund", "refund.reason: \"bored\" is not one of"),
            (#"{"id": "re_1", "object": "refund", "amount": null, "created": 1, "currency": "usd"}"#, "refund", "refund.amount: null, which"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "usd", "metadata": {"k": 1}}"#, "refund", "refund.metadata.k: a number"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "usd", "charge": 7}"#, "refund", "refund.charge: a number"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "usd", "destination_details": {"type": "card", "card": {}}}"#,
             "refund", "refund.destination_details.card.type: missing"),
            (#"{"id": "re_1", "object": "refund", "amount": 1, "created": 1, "currency": "usd", "balance_transaction": {"id": "txn_1"}}"#,
             "refund", "unchecked refund.balance_transaction: an object under `balance_transaction`, a schema not vendored"),
            (#"{"id": "cus_1", "object": "customer", "deleted": false}"#, "deleted_customer", "deleted_customer.deleted: false is not one of"),
            (#"{"error": {"type": "card_error", "payment_intent": {"id": "pi_1", "object": "payment_intent", "created": 1, "livemode": false, "status": "done"}}}"#,
             "error", "error.error.payment_intent.status: \"done\" is not one of"),
            (#"{"object": "list", "data": [], "has_more": false}"#, "customer", "customer.id: missing"),
        ]
        for (json, name, expected) in cases {
            let found = try problems(json, name)
            #expect(found.contains { $0.hasPrefix(expected) }, "\(expected) — got: \(found)")
        }
        // An allow-listed member passes only through the allow-list, and says it was used.
        let intent = try JSONParser().parse(#"{"id": "pi_1", "object": "payment_intent", "created": 1, "livemode": false, "status": "succeeded", "source": null}"#)
        let allowed = schema.check(intent, against: "payment_intent", at: "pi")
        #expect(allowed.isClean && allowed.tolerated == ["payment_intent.source"], "\(allowed)")
        #expect(try StripeSchema.vendored().check(intent, against: "payment_intent", at: "pi").problems
            == ["pi.source: not in Stripe's payment_intent schema (an invented field)"])
        let page = try JSONParser().parse(#"{"object": "list", "data": [{"id": "cus_1", "object": "customer", "created": 1, "livemode": "no"}], "has_more": false}"#)
        let pageProblems = schema.checkPage(page, of: "list", items: "customer", at: "customers").lines
        #expect(pageProblems.contains("customers.url: missing, and Stripe's schema requires it"), "\(pageProblems)")
        #expect(pageProblems.contains("customers.data[0].livemode: a string, where Stripe's schema has boolean"), "\(pageProblems)")
    }
}
