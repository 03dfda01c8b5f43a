import Foundation
import PayPanel
import Testing
import TestSupport

/// `metadata` over the wire: set on a payment intent or a checkout, returned on the object and
/// in its events, filterable on the intents' list, updated Stripe's way on a checkout, and held
/// to Stripe's limits (50 keys, keys of 1 to 40 characters without brackets, values of 500).
@Suite struct MetadataRouteTests {
    @Test func anIntentsMetadataRoundTripsAndIsInItsEvents() async throws {
        let server = try await ServerProcess.start()
        // Keys come back in order (the JSON form sorts them).
        let metadata = #"{"customer":"cus 1732000000123456780","note":"ünïcödé ✓","order":"42"}"#
        let created = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","metadata":\#(metadata)}"#)
        #expect(created.status == 200, "\(created.text)")
        let expected = try JSONParser().parse(metadata)
        #expect(created["metadata"] == expected)
        let fetched = try await server.request("GET", "/v1/payment_intents/\(created.id)?include=events")
        #expect(fetched["metadata"] == expected)
        #expect(fetched["events"]?.arrayValue?.first?["data"]?["metadata"] == expected, "the history keeps them")
        // Without metadata an intent has an empty object, as on Stripe.
        let plain = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD"}"#)
        #expect(plain["metadata"] == JSONValue.object(JSONObject()))

        let events = try await FreeTextRouteTests.events(server, type: "payment_intent.created", count: 2)
        let event = events.first { $0["data"]?["object"]?["id"]?.stringValue == created.id }
        #expect(event?["data"]?["object"]?["metadata"] == expected, "\(events)")
        // Paid: every later event carries them too.
        let paid = try await server.request("POST", "/v1/payment_intents/\(created.id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(paid["status"] == "succeeded" && paid["metadata"] == expected, "\(paid.text)")
        let succeeded = try await FreeTextRouteTests.events(server, type: "payment_intent.succeeded", count: 1)
        #expect(succeeded.first?["data"]?["object"]?["metadata"] == expected)
        #expect(await server.terminate() == 0)
    }

    @Test func theListIsFilteredByMetadata() async throws {
        let server = try await ServerProcess.start()
        var ids: [String: String] = [:]
        for (name, metadata) in [("a", #"{"order":"42","shop":"north"}"#), ("b", #"{"order":"42","shop":"south"}"#),
                                 ("c", #"{"order":"43","shop":"north"}"#), ("d", "{}")] {
            let created = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","metadata":\#(metadata)}"#)
            ids[name] = created.id
        }
        func listed(_ query: String) async throws -> Set<String> {
            let list = try await server.request("GET", "/v1/payment_intents?\(query)")
            #expect(list.status == 200, "\(query): \(list.text)")
            return Set((list["data"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        }
        #expect(try await listed("metadata[order]=42") == [ids["a"]!, ids["b"]!])
        #expect(try await listed("metadata%5Border%5D=42&metadata[shop]=north") == [ids["a"]!])
        #expect(try await listed("metadata[order]=44").isEmpty)
        #expect(try await listed("metadata[shop]=north&limit=1").count == 1)
        // Paging keeps the filter: the page after the first north intent is the other one.
        let first = try await server.request("GET", "/v1/payment_intents?metadata[shop]=north&limit=1")
        #expect(first["has_more"] == true)
        let after = first["data"]?.arrayValue?.first?["id"]?.stringValue ?? ""
        #expect(try await listed("metadata[shop]=north&limit=1&starting_after=\(after)").count == 1)
        let badKey = try await server.request("GET", "/v1/payment_intents?metadata[]=1")
        #expect(badKey.status == 400 && badKey.json["error"]?["param"] == "metadata", "\(badKey.text)")
        #expect(await server.terminate() == 0)
    }

    /// Each limit is a 400 naming the field; nothing is created.
    @Test func stripesLimitsAreEnforcedNamingTheField() async throws {
        let server = try await ServerProcess.start()
        let fiftyOne = (1...51).map { #""k\#($0)":"v""# }.joined(separator: ",")
        let cases: [(body: String, param: String)] = [
            ("{\(fiftyOne)}", "metadata"),
            (#"{"\#(String(repeating: "k", count: 41))":"v"}"#, "metadata["),
            (#"{"k":"\#(String(repeating: "v", count: 501))"}"#, "metadata[k]"),
            (#"{"a[b]":"v"}"#, "metadata["),
            (#"{"":"v"}"#, "metadata[]"),
            (#"{"n":42}"#, "metadata[n]"),
            (#"{"n":"line\u0000"}"#, "metadata[n]"),
            (#"["order"]"#, "metadata"),
        ]
        for (metadata, param) in cases {
            let response = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","metadata":\#(metadata)}"#)
            #expect(response.status == 400, "\(metadata): \(response.text)")
            let named = response.json["error"]?["param"]?.stringValue ?? ""
            #expect(named.hasPrefix(param), "\(metadata): \(response.text)")
        }
        // Exactly at the limits is fine.
        let fifty = (1...50).map { #""k\#($0)":"\#(String(repeating: "v", count: 500))""# }.joined(separator: ",")
        let atLimits = try await server.request("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","metadata":{\#(fifty)}}"#)
        #expect(atLimits.status == 200 && atLimits["metadata"]?.objectValue?.members.count == 50, "\(atLimits.text.prefix(300))")
        let list = try await server.request("GET", "/v1/payment_intents")
        #expect(list["data"]?.arrayValue?.count == 1, "the refused ones created nothing")
        #expect(await server.terminate() == 0)
    }

    /// A checkout's metadata: set at creation, updated Stripe's way (the keys given are set, ""
    /// removes one, "metadata": "" removes all), never in the push payload, and in its event.
    @Test func aCheckoutsMetadataIsUpdatedStripesWayAndIsInItsEvent() async throws {
        let server = try await ServerProcess.start()
        let created = try await server.request("POST", "/v1/checkouts", json: #"{"metadata":{"order":"42","gift":"yes"}}"#)
        #expect(created.status == 200 && created["metadata"] == ["gift": "yes", "order": "42"], "\(created.text)")
        #expect(created["push_payload"].map { JSONWriter.string($0) }?.contains("gift") == false, "the device never sees them")
        let path = "/v1/checkouts/\(created.id)"
        let updated = try await server.request("POST", path, json: #"{"metadata":{"gift":"","wrap":"blue"}}"#)
        #expect(updated["metadata"] == ["order": "42", "wrap": "blue"], "\(updated.text)")
        #expect(try await server.request("GET", path)["metadata"] == ["order": "42", "wrap": "blue"])
        let tooMany = (1...49).map { #""k\#($0)":"v""# }.joined(separator: ",")
        let over = try await server.request("POST", path, json: #"{"metadata":{\#(tooMany)}}"#)
        #expect(over.status == 400 && over.json["error"]?["param"] == "metadata", "51 keys after the merge: \(over.text)")
        let cleared = try await server.request("POST", path, json: #"{"metadata":""}"#)
        #expect(cleared["metadata"] == JSONValue.object(JSONObject()), "\(cleared.text)")
        let again = try await server.request("POST", path, json: #"{"metadata":{"order":"43"}}"#)
        #expect(again["metadata"] == ["order": "43"])
        let canceled = try await server.request("POST", "\(path)/cancel", json: "{}")
        #expect(canceled["status"] == "canceled" && canceled["metadata"] == ["order": "43"])
        let events = try await FreeTextRouteTests.events(server, type: "checkout.canceled", count: 1)
        #expect(events.first?["data"]?["object"]?["metadata"] == ["order": "43"], "\(events)")
        #expect(await server.terminate() == 0)
    }
}
