import Foundation
@testable import MockProcessorServer
import PayPanel
import PayPanelHTTP
import TestSupport
import Testing

/// Every route says which parameters it takes (`ProcessorRoutes.parameterShapes`), and a name
/// it does not take — at any depth, in the body or the query — is refused as Stripe refuses it
/// ("Received unknown parameter: payment_method_data[card][colour]"), never accepted and
/// dropped. Generated from the router's table and the shapes, so a new route or a new nested
/// hash is probed without editing the test.
@Suite struct UnknownParameterTests {
    static func route(_ entry: Router.Entry) -> String { "\(entry.route.method.rawValue) \(entry.route.pattern.text)" }

    @Test func everyRouteOfTheTableSaysWhichParametersItTakes() throws {
        let routes = try UnrecognizedRouteTests.table().map(Self.route)
        #expect(Set(routes) == Set(ProcessorRoutes.parameterShapes.keys), "routes without a shape, or shapes without a route")
    }

    @Test func anUnknownNameAtEveryDepthOfEveryRouteIsRefusedByName() async throws {
        var probes: [(method: String, path: String, pairs: [(String, String)], name: String)] = []
        for entry in try UnrecognizedRouteTests.table() {
            let shape = try #require(ProcessorRoutes.parameterShapes[Self.route(entry)])
            let path = RouteProbe.path(for: entry.route.pattern) { _ in "x_1" }
            for parent in shape.memberPaths() {
                let name = Parameters.name(parent + ["colour"])
                probes.append((entry.route.method.rawValue, path, [(name, "red")], name))
            }
        }
        #expect(probes.count > 30, "\(probes.count) probes")

        let directory = try TemporaryDirectory("procserve-params")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_params")
        var wrong: [String] = []
        for probe in probes {
            // DELETE, like GET, takes its parameters in the query.
            let (path, pairs) = probe.method == "DELETE" ? (probe.path + "?" + StripeTestClient.form(probe.pairs), []) : (probe.path, probe.pairs)
            let reply = try await client.call(probe.method, path, pairs)
            if reply.status != 400 || reply["error"]?["type"] != "invalid_request_error"
                || reply["error"]?["message"]?.stringValue != "Received unknown parameter: \(probe.name)"
                || reply["error"]?["param"]?.stringValue != probe.name {
                wrong.append("\(probe.method) \(probe.path) \(probe.name): \(reply.status) \(reply.text.prefix(160))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(probes.count) not refused by name:\n\(wrong.prefix(8).joined(separator: "\n"))")

        // A body on a DELETE would be dropped: refused instead.
        let deleted = try await client.call("DELETE", "/v1/webhook_endpoints/we_1", [("colour", "red")])
        #expect(deleted.status == 400 && deleted.text.contains("query string"), "\(deleted.text)")
        #expect(await server.terminate() == 0)
    }

    /// What the mock takes and ignores is said in docs/mock-processor.md, route by route, in a
    /// table whose rows are generated here (a row missing or stale fails, printing the rows).
    @Test func everyIgnoredParameterIsListedInTheDocs() throws {
        let document = try String(contentsOf: RepositoryPaths.root.appending(path: "docs/mock-processor.md"), encoding: .utf8)
        let rows = ProcessorRoutes.parameterShapes.sorted { $0.key < $1.key }
            .filter { !$0.value.ignoredNames().isEmpty }
            .map { "| `\($0.key)` | \($0.value.ignoredNames().map { "`\($0)`" }.joined(separator: ", ")) |" }
        #expect(rows.count > 3)
        let missing = rows.filter { !document.contains($0) }
        #expect(missing.isEmpty, "docs/mock-processor.md lacks these rows of the ignored-parameters table:\n\(missing.joined(separator: "\n"))")
    }

    /// `created` filters lists (exact, gt, gte, lt, lte); a refund keeps its `reason`.
    @Test func listsFilterByCreatedAndRefundsKeepTheirReason() async throws {
        let directory = try TemporaryDirectory("procserve-created")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_created")
        var ids: [String] = []
        var times: [Int64] = []
        for _ in 0..<3 {
            let made = try await client.call("POST", "/v1/payment_intents", [("amount", "1000"), ("currency", "usd")])
            ids.append(made.id)
            times.append(made["created"]?.int64Value ?? -1)
            _ = try await client.call("POST", "/_mock/clock/advance", [("seconds", "60")])
        }
        func listed(_ pairs: [(String, String)]) async throws -> [String] {
            let reply = try await client.call("GET", "/v1/payment_intents", pairs)
            #expect(reply.status == 200, "\(reply.text)")
            return reply["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        #expect(try await listed([("created[gt]", String(times[0]))]) == [ids[2], ids[1]])
        #expect(try await listed([("created[gte]", String(times[0])), ("created[lt]", String(times[2]))]) == [ids[1], ids[0]])
        #expect(try await listed([("created[lte]", String(times[1])), ("limit", "1")]) == [ids[1]])
        #expect(try await listed([("created", String(times[2]))]) == [ids[2]])
        let bad = try await client.call("GET", "/v1/payment_intents", [("created[gt]", "yesterday")])
        #expect(bad.status == 400 && bad["error"]?["param"] == "created[gt]", "\(bad.text)")

        let paid = try await client.call("POST", "/v1/payment_intents", [("amount", "1000"), ("currency", "usd"), ("confirm", "true"), ("payment_method", "pm_card_visa")])
        let refund = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "100"), ("reason", "requested_by_customer")])
        #expect(refund["reason"] == "requested_by_customer", "\(refund.text)")
        let fetched = try await client.call("GET", "/v1/refunds/\(refund.id)")
        #expect(fetched["reason"] == "requested_by_customer")
        let refused = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "100"), ("reason", "because")])
        #expect(refused.status == 400 && refused["error"]?["param"] == "reason", "\(refused.text)")
        let plain = try await client.call("POST", "/v1/refunds", [("payment_intent", paid.id), ("amount", "100")])
        #expect(plain.json["reason"] == .null, "Stripe sends reason: null when none was given")
        #expect(await server.terminate() == 0)
    }
}
