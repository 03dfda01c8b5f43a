import Foundation
import PayPanel
import PayPanelHTTP
import PayPanelServer

/// `paypanel serve [--host H] [--port P] [--db PATH] [--processor-db PATH] [--json] [--now TIME] [--worker-interval MS]`
struct ServeCommand: CLICommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the payments HTTP API (/v1) with the mock processor, and run the reconciliation worker.",
        discussion: """
            Prints one line, 'listening on http://HOST:PORT' (with --json one JSON object), then one JSON \
            access-log line per request on standard error. With no API key in the database, one is created \
            and printed once on standard error. SIGTERM or SIGINT: stop accepting, finish requests in flight \
            (up to 10 s), stop the worker, exit 0. See docs/http-api.md. GET /console is the operator \
            console; with --test-root, GET /demo is the device simulator page (docs/demo.md).
            """,
        options: [
            .value("--host", "address", help: "The address to listen on (default: 127.0.0.1)."),
            .value("--port", "port", help: "The port to listen on; 0 picks a free one (default: 8080)."),
            .value("--worker-interval", "ms", help: "How often the worker fires due timers and looks up unknown outcomes (default: 1000)."),
        ] + TokenOptions.checking + CheckoutOptions.all,
        usage: "[--host <address>] [--port <port>] [--worker-interval <ms>] [--test-root | --merchant-cert <pem> --merchant-key <pem>] [--json] [--db <path>] [--processor-db <path>] [--now <time>]")

    let arguments: ParsedArguments
    let host: String
    let port: Int
    let workerInterval: Duration
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        host = arguments.value("--host") ?? "127.0.0.1"
        port = try arguments.integer("--port", in: 0...65535) ?? 8080
        workerInterval = .milliseconds(try arguments.integer("--worker-interval", in: 10...3_600_000) ?? 1000)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let environment = context.environment
        let clock = try arguments.clock(environment: environment)
        let databasePath = arguments.databasePath(environment: environment)
        let service = try arguments.openCheckoutService(environment: environment, clock: clock)
        try Self.ensureKey(database: try arguments.openDatabase(environment: environment, clock: clock), clock: clock, console: context.console)
        var api = try PaymentsAPI(service: service, databasePath: databasePath, clock: clock)
        // The checkout desk has its own connection to the same database (WAL), like the key checks.
        let desk = CheckoutDesk(store: try SQLitePaymentStore(path: databasePath, clock: clock), service: service, clock: clock)
        // Apple Pay tokens on /pay and on confirm: Apple Root CA - G3 and the configured merchant
        // keys, or, with --test-root, PayPanel's test identity (never in production).
        let verification = try arguments.tokenVerification(console: context.console)
        if verification.trust.isTestMode {
            Self.writeError("test mode: Apple Pay tokens signed by PayPanel's test root are accepted (--test-root); never use this in production")
        }
        let decryptor = ApplePayTokenDecryptor(verifier: verification.verifier)
        api.tokenDecryptor = decryptor
        // The device simulator page and its demo key exist in test mode only (docs/demo.md).
        var demo: [any APIRouteProvider] = []
        if verification.trust.isTestMode {
            let key = DemoKey()
            api.alternativeCredentials.append(key)
            demo.append(DemoSite(key: key, sealing: DemoWalletSealing(clock: clock)))
        }
        let checkouts = CheckoutsAPI(desk: desk, api: api, decryptor: decryptor)

        // Before the server starts: a signal sent right after the 'listening' line is not lost.
        let signals = TerminationSignals()
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.accessLog = { entry in Self.writeError(AccessLogLine.json(entry)) }
        let server: PaymentsServer
        do {
            server = try PaymentsServer.start(
                api: api, configuration: configuration, providers: [checkouts, ConsoleSite()] + demo, workerInterval: workerInterval,
                alsoEachPass: { _ = try? await desk.expireDue() },
                workerReport: { report, error in Self.writeError(Self.workerLine(report, error)) })
        } catch let error as HTTPServerError {
            throw CLIFailure(code: "listen_failed", message: "cannot listen on \(host):\(port): \(error)")
        }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
        if json {
            context.console.printJSON(.orderedObject([("listening", .string(url)), ("host", .string(host)), ("port", .number(server.port))]), pretty: false)
        } else {
            context.console.print("listening on \(url)")
        }
        context.console.flush()
        await server.shutdownOnTermination(signals, grace: .seconds(10))
        return .success
    }

    /// A newcomer needs no setup: with no active key, one is made and shown once.
    static func ensureKey(database: Database, clock: any WallClock, console: Console) throws {
        let ring = APIKeyRing(store: SQLiteAPIKeyStore(database: database))
        guard try !ring.hasActiveKey() else { return }
        let created = try ring.create(name: "default", at: clock.now())
        console.printError("API key created (shown once; 'paypanel keys create' makes more): \(created.key) id=\(created.record.id)")
    }

    static func workerLine(_ report: ReconciliationReport?, _ error: (any Error)?) -> String {
        var members: [(String, JSONValue)] = [("worker", "reconcile")]
        if let report {
            members += [("timers", .number(report.timers.count)), ("lookups", .number(report.lookups.count)),
                        ("failures", .number(report.failures.count))]
        }
        if let error { members.append(("error", .string((error as? any PayPanelError)?.code ?? "internal_error"))) }
        return JSONWriter.string(.orderedObject(members))
    }

    /// One line to standard error, written at once (the access log runs on the server's thread).
    @Sendable static func writeError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
