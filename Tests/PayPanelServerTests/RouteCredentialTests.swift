import Foundation
import PayPanel
import PayPanelDemo
import PayPanelHTTP
import PayPanelServer
import Synchronization
import Testing
import TestSupport

/// Every route of `serve`'s router, generated from its own table: without a credential, with
/// the wrong kind of credential, and under every path spelling that decodes to it or near it,
/// a guarded route never answers 2xx and its handler never runs. A route added later is
/// probed without editing this test; a route with a new kind of credential makes the test say
/// which credentials that kind accepts.
@Suite(.serialized) struct RouteCredentialTests {
    /// A credential a request can carry, for the probe.
    enum Carried: String, CaseIterable, Sendable {
        case nothing, secretKey, demoKey, clientSecret, processorSignature, unknownBearer, basic
    }

    /// Which carried credentials a route's declared credential accepts; the others must fail.
    static let accepted: [String: Set<Carried>] = [
        "secret key": [.secretKey],
        "demo key (refused) or secret key": [.secretKey],
        "demo key or secret key": [.secretKey, .demoKey],
        "demo key": [.demoKey],
        "checkout client secret": [.clientSecret],
        "processor signature": [.processorSignature],
    ]

    /// The routes of `serve --test-root` (every provider it adds), with their credentials,
    /// over a real database, and the credentials of each kind that are valid on it.
    struct Assembly {
        let router: Router
        let headers: [Carried: [(String, String)]]
        let checkoutID: String
    }

    static func assemble(in directory: TemporaryDirectory, runs: Recorder<String>) async throws -> Assembly {
        let clock = SystemClock()
        let path = directory.file("payments.sqlite")
        let stores = SQLiteStoreFactory(path: path, clock: clock)
        let service = PaymentService(store: try SQLitePaymentStore(path: path, clock: clock), processor: UnusedProcessor())
        let webhookSecret = "whsec_route_credential_test"
        // The assembly `serve` runs, so a route it mounts is probed without a copy of its list.
        var setup = PaymentsServerSetup(
            stores: stores, service: service, clock: clock,
            tokenVerifier: try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant], trustedRoot: ApplePayTestKeys.root),
            processorLedger: NoProcessorLedger())
        setup.demoSealing = NoSealing()
        setup.webhookBox = try WebhookSecretBox(masterKey: Array(repeating: 7, count: 32))
        setup.processorWebhookSecret = ProcessorWebhookSecret(webhookSecret)
        let served = try PaymentsServerAssembly(setup)
        let desk = served.desk
        let demoKey = try #require(served.api.demoKey, "the test-mode assembly made no demo key")
        var router = served.router
        // Every handler reports that it ran; a guarded one never may in this test.
        router.wrapHandlers { route, handler in
            { context in
                runs.record(route.description)
                return try await handler(context)
            }
        }
        let secretKey = try APIKeyRing(store: try stores.openAPIKeyStore()).create(name: "probe", at: clock.now()).key
        let checkout = try await desk.create(json: .object(JSONObject()))
        let signature = StripeWebhookSignature.header(timestamp: Int64(clock.now().timeIntervalSince1970), body: Array("{}".utf8), secret: webhookSecret)
        let headers: [Carried: [(String, String)]] = [
            .nothing: [],
            .secretKey: [("Authorization", "Bearer \(secretKey)")],
            .demoKey: [("Authorization", "Bearer \(demoKey.value)")],
            .clientSecret: [("Authorization", "Bearer \(checkout.clientSecret)")],
            .processorSignature: [("Stripe-Signature", signature)],
            .unknownBearer: [("Authorization", "Bearer sk_test_000000000000000000000000")],
            .basic: [("Authorization", "Basic \(Data("\(secretKey):".utf8).base64EncodedString())")],
        ]
        return Assembly(router: router, headers: headers, checkoutID: checkout.checkout.id)
    }

    /// Runs `body` against the assembly behind a real server on port 0 (the same admission as
    /// `serve`: the credential is checked before the body is read).
    static func withServedAssembly(_ body: (Assembly, Int, Recorder<String>) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("paypanel-route-credentials")
        let runs = Recorder<String>()
        let assembly = try await assemble(in: directory, runs: runs)
        let server = try HTTPServer.start(admission: assembly.router.admission)
        do {
            try await body(assembly, server.port, runs)
        } catch {
            await server.shutdown(grace: .seconds(2))
            throw error
        }
        await server.shutdown(grace: .seconds(2))
    }

    /// The guarded routes, as (route, its declared credential's accepted kinds).
    static func guarded(_ router: Router) -> [(Router.Entry, Set<Carried>)] {
        router.table.compactMap { entry in
            guard entry.credential.name != "none" else { return nil }
            let accepted = accepted[entry.credential.name]
            #expect(accepted != nil, "\(entry.route) has the credential '\(entry.credential.name)': say in RouteCredentialTests.accepted what it accepts")
            return (entry, accepted ?? [])
        }
    }

    static func concretePath(_ entry: Router.Entry, checkoutID: String) -> String {
        RouteProbe.path(for: entry.route.pattern) { _ in
            entry.route.pattern.text.hasPrefix("/v1/checkouts/") ? checkoutID : "obj_probe_1"
        }
    }

    /// The methods a route answers: its own, and HEAD for a GET route.
    static func methods(_ entry: Router.Entry) -> [String] {
        entry.route.method == .get ? ["GET", "HEAD"] : [entry.route.method.rawValue]
    }

    @Test func everyGuardedRouteRefusesTheWrongCredentialBeforeItsHandler() async throws {
        try await Self.withServedAssembly { assembly, port, runs in
            let guarded = Self.guarded(assembly.router)
            #expect(guarded.count >= 25, "the table has the API's routes")
            for (entry, accepted) in guarded {
                let path = Self.concretePath(entry, checkoutID: assembly.checkoutID)
                for carried in Carried.allCases where !accepted.contains(carried) {
                    for method in Self.methods(entry) {
                        let headers = assembly.headers[carried] ?? []
                        let status = try await onThread {
                            try RouteProbe.send(port: port, method: method, target: path, headers: headers, body: method == "POST" ? "{}" : nil)
                        }
                        #expect(!(200..<300).contains(status), "\(method) \(path) with \(carried): \(status)")
                        #expect([400, 401, 403, 503].contains(status), "\(method) \(path) with \(carried): \(status), expected a refusal of the credential")
                    }
                }
            }
            let ran = Set(runs.all)
            for (entry, _) in guarded {
                #expect(!ran.contains(entry.route.description), "the handler of \(entry.route) ran without its credential")
            }
        }
    }

    @Test func noSpellingOfAGuardedPathReachesItsHandlerWithoutACredential() async throws {
        try await Self.withServedAssembly { assembly, port, runs in
            var probes = 0
            for (entry, _) in Self.guarded(assembly.router) {
                let path = Self.concretePath(entry, checkoutID: assembly.checkoutID)
                for target in RouteProbe.spellings(of: path, authority: "127.0.0.1:\(port)") {
                    for method in Self.methods(entry) {
                        probes += 1
                        let status = try await onThread {
                            try RouteProbe.send(port: port, method: method, target: target, headers: [], body: method == "POST" ? "{}" : nil)
                        }
                        #expect(!(200..<300).contains(status), "\(method) \(target) (a spelling of \(entry.route)) answered \(status) without a credential")
                        #expect(status != 0 && status < 500, "\(method) \(target): \(status)")
                    }
                }
            }
            #expect(probes > 1000)
            let guardedRuns = runs.all.filter { run in Self.guarded(assembly.router).contains { $0.0.route.description == run } }
            #expect(guardedRuns.isEmpty, "handlers ran without a credential: \(Set(guardedRuns).sorted())")
        }
    }

    @Test func theEncodedPathProbeFromTheReportIsRefused() async throws {
        try await Self.withServedAssembly { _, port, runs in
            for (method, target) in [("GET", "/%761/payment_intents"), ("POST", "/%761/refunds"), ("GET", "/%76%31/events"),
                                     ("POST", "/v1/webhook%5Fendpoints"), ("GET", "/v%31/payment_intents")] {
                let status = try await onThread {
                    try RouteProbe.send(port: port, method: method, target: target, headers: [], body: method == "POST" ? "{}" : nil)
                }
                #expect(status == 401, "\(method) \(target): \(status)")
            }
            #expect(runs.all.isEmpty)
        }
    }

    @Test func everyGetRouteAnswersHeadWithItsStatusAndHeadersAndNoBody() async throws {
        try await Self.withServedAssembly { assembly, port, runs in
            for entry in assembly.router.table where entry.route.method == .get {
                let path = Self.concretePath(entry, checkoutID: assembly.checkoutID)
                let carried: Carried = entry.credential.name == "none" ? .nothing : .secretKey
                let headers = assembly.headers[carried] ?? []
                let (get, head) = try await onThread { () throws -> (WireResponse, WireResponse) in
                    let client = try RawClient.connect(to: port)
                    var lines = "Host: 127.0.0.1\r\n"
                    for (name, value) in headers { lines += "\(name): \(value)\r\n" }
                    try client.send("GET \(path) HTTP/1.1\r\n\(lines)\r\n")
                    let get = try client.readResponse()
                    // On the same connection: a body after HEAD's head would be read as the next answer.
                    try client.send("HEAD \(path) HTTP/1.1\r\n\(lines)\r\n")
                    let head = try client.readHeadResponse()
                    try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    #expect(try client.readResponse().status == 200, "\(path): the connection is still in step after HEAD")
                    return (get, head)
                }
                #expect(head.status == get.status, "HEAD \(path): \(head.status), GET: \(get.status)")
                let volatile: Set<String> = ["request-id"]
                let headNames = head.headers.map { $0.name.lowercased() }.filter { !volatile.contains($0) }
                let getNames = get.headers.map { $0.name.lowercased() }.filter { !volatile.contains($0) }
                #expect(headNames == getNames, "HEAD \(path) headers \(headNames), GET \(getNames)")
                #expect(head.headers["Content-Type"] == get.headers["Content-Type"], "\(path)")
                #expect(head.body.isEmpty)
            }
            #expect(runs.all.contains("GET /favicon.ico"))
        }
    }

    @Test func theFaviconIsNoContent() async throws {
        try await Self.withServedAssembly { _, port, _ in
            let response = try await onThread { () throws -> WireResponse in
                let client = try RawClient.connect(to: port)
                try client.send("GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 204 && response.body.isEmpty && response.headers["Content-Length"] == nil)
            #expect(response.headers["Cache-Control"]?.contains("max-age") == true)
        }
    }

    /// The routes meant for anyone. A route declared public that is not here fails: making a
    /// route public is a decision to write down, not a default.
    static let publicRoutes: Set<String> = [
        "GET /healthz", "GET /readyz", "GET /openapi.json", "GET /favicon.ico",
        "GET /console", "GET /console/console.css", "GET /console/console.js",
        "GET /demo", "GET /demo/demo.css", "GET /demo/demo.js", "GET /demo/session",
    ]

    @Test func onlyTheListedRoutesArePublic() async throws {
        let directory = try TemporaryDirectory("paypanel-route-public")
        let assembly = try await Self.assemble(in: directory, runs: Recorder<String>())
        let open = Set(assembly.router.table.filter { $0.credential.name == "none" }.map(\.route.description))
        #expect(open == Self.publicRoutes, "public but not listed: \(open.subtracting(Self.publicRoutes).sorted()); listed but guarded or gone: \(Self.publicRoutes.subtracting(open).sorted())")
    }

    @Test func theTableIsWhatServeServesAndEveryRouteIsDocumented() async throws {
        let directory = try TemporaryDirectory("paypanel-route-table")
        let assembly = try await Self.assemble(in: directory, runs: Recorder<String>())
        let table = Set(assembly.router.table.map { "\($0.route.method.rawValue.lowercased()) \($0.route.pattern.text)" })
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let document = try await server.request("GET", "/openapi.json", key: "").json
        #expect(await server.terminate() == 0)
        var documented: Set<String> = []
        for (path, item) in document["paths"]?.objectValue?.members ?? [] {
            for (method, _) in item.objectValue?.members ?? [] { documented.insert("\(method) \(path)") }
        }
        // Both ways: a route serve adds that this test's assembly lacks would go unprobed.
        #expect(table.subtracting(documented).isEmpty, "routes not in serve's /openapi.json: \(table.subtracting(documented).sorted())")
        #expect(documented.subtracting(table).isEmpty, "serve has routes this test does not probe: \(documented.subtracting(table).sorted())")
    }

    @Test func theDocumentSaysWhichCredentialEachRouteTakes() async throws {
        let directory = try TemporaryDirectory("paypanel-route-security")
        let assembly = try await Self.assemble(in: directory, runs: Recorder<String>())
        let response = await assembly.router.respond(to: try HTTPRequest(method: .get, target: "/openapi.json"))
        let document = try JSONParser().parse(response.body)
        for entry in assembly.router.table {
            let operation = document["paths"]?[entry.route.pattern.text]?[entry.route.method.rawValue.lowercased()]
            let security = operation?["security"]?.arrayValue ?? []
            let isPublic = entry.credential.name == "none"
            #expect(security.isEmpty == isPublic, "\(entry.route): credential '\(entry.credential.name)' but security \(security)")
        }
    }
}

/// The demo routes' sealing is not exercised: refused requests never reach it.
private struct NoSealing: DemoTokenSealing {
    var wallet: [DemoWalletCard] { [] }
    func seal(cardID: String, amount: Amount) throws -> JSONValue { .null }
}
