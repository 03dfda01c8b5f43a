import Foundation
import MockProcessor
@testable import MockProcessorServer
import PayPanel
@testable import PayPanelHTTP
import TestSupport
import Testing

/// What `processor serve` answers a request no route takes — an unknown path, or a method the
/// path does not have — is Stripe's: 404 `invalid_request_error` "Unrecognized request URL
/// (METHOD: path)" in the JSON envelope, which Stripe's SDKs raise as `InvalidRequestError`.
/// Generated from the router's own table, so a route added later is covered.
@Suite struct UnrecognizedRouteTests {
    /// The routes `processor serve` registers (the service behind them is never called).
    static func table() throws -> [Router.Entry] {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let mock = try MockProcessor(ledgerPath: ":memory:", clock: clock)
        let service = try ProcessorService(mock: mock, clock: clock, webhookBox: WebhookSecretBox(masterKey: [UInt8](repeating: 7, count: 32)))
        return ProcessorRoutes(service: service, options: ProcessorServer.Options()).router.table
    }

    static let methods = ["GET", "POST", "DELETE", "PUT", "PATCH"]

    @Test func everyMethodAPathDoesNotTakeAndEveryUnknownPathIsStripesUnrecognizedURLError() async throws {
        var probes: [(method: String, path: String)] = []
        let table = try Self.table()
        let byPath = Dictionary(grouping: table, by: { RouteProbe.path(for: $0.route.pattern) { _ in "x_1" } })
        for (path, entries) in byPath.sorted(by: { $0.key < $1.key }) {
            let taken = Set(entries.map(\.route.method.rawValue))
            // A method another route of the path's shape takes is that route's (POST
            // /v1/payment_intents/search is an update of the intent "search", as at Stripe).
            let segments = path.split(separator: "/").map(String.init)
            let routedElsewhere = { (method: String) in
                table.contains { $0.route.method.rawValue == method && $0.route.pattern.match(segments) != nil }
            }
            probes += Self.methods.filter { !taken.contains($0) && !routedElsewhere($0) }.map { ($0, path) }
        }
        #expect(probes.count > 20, "the table gave \(probes.count) probes: is it empty?")
        probes += [("GET", "/v1/nope"), ("GET", "/v1/setup_intents/seti_1"), ("POST", "/v1/payment_intents/pi_1/unknown"), ("GET", "/")]

        let directory = try TemporaryDirectory("procserve-routes")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_routes")
        var wrong: [String] = []
        for (method, path) in probes {
            let reply = try await client.call(method, path)
            let message = reply["error"]?["message"]?.stringValue ?? ""
            if reply.status != 404 || reply["error"]?["type"] != "invalid_request_error"
                || !message.hasPrefix("Unrecognized request URL (\(method): \(path))")
                || reply.headers["Content-Type"]?.hasPrefix("application/json") != true {
                wrong.append("\(method) \(path): \(reply.status) \(reply.text.prefix(160))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(probes.count) not in Stripe's form:\n\(wrong.prefix(8).joined(separator: "\n"))")

        // The client's path comes back with card numbers masked.
        let card = try await client.call("GET", "/v1/tokens/4242424242424242")
        #expect(card.status == 404 && !card.text.contains("4242424242424242"), "\(card.text)")
        #expect(await server.terminate() == 0)
    }
    /// docs/mock-processor.md names every route the router has: the Stripe ones in "What is
    /// covered of Stripe's API", the `/_mock/` ones in "Test endpoints" — so a route added later
    /// without its row fails here.
    @Test func everyRouteIsInTheCoverageTable() throws {
        let document = try String(contentsOf: RepositoryPaths.root.appending(path: "docs/mock-processor.md"), encoding: .utf8)
        func section(_ title: String) -> Substring {
            guard let start = document.range(of: title) else { return "" }
            let rest = document[start.upperBound...]
            return rest[..<(rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex)]
        }
        let covered = section("### What is covered of Stripe's API")
        let testEndpoints = section("### Test endpoints")
        let table = try Self.table()
        #expect(table.count > 30)
        let missing = table.map { "`\($0.route.method.rawValue) \($0.route.pattern.text)`" }.filter { name in
            !(name.contains("/_mock/") ? testEndpoints : covered).contains(name)
        }
        #expect(missing.isEmpty, "docs/mock-processor.md does not list: \(missing.joined(separator: ", "))")
    }
}
