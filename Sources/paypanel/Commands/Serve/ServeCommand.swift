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
            (up to 10 s), stop the worker, exit 0. With --apns-key-file, --apns-key-id and --apns-team-id, \
            checkouts created with a device are pushed through APNs and the worker retries pushes; without them \
            it says so once and pushes nothing. GET /console is the operator console; with --test-root, GET /demo \
            is the device simulator page. See docs/http-api.md, docs/notifications.md and docs/demo.md.
            """,
        options: [
            .value("--host", "address", help: "The address to listen on (default: 127.0.0.1)."),
            .value("--port", "port", help: "The port to listen on; 0 picks a free one (default: 8080)."),
            .value("--worker-interval", "ms", help: "How often the worker fires due timers and looks up unknown outcomes (default: 1000)."),
        ] + WebhookServeOptions.all + TokenOptions.checking + CheckoutOptions.all + APNsOptions.all,
        combinations: "[--processor-webhook-secret <secret> | --public-url <url>] [--test-root | --merchant-cert <pem> --merchant-key <pem>] [--apns-key-file <p8> --apns-key-id <id> --apns-team-id <id> --apns-topic <bundle-id> [--apns-environment development|production] [--apns-url <url>]]")

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
        ServerMemory.limitMallocArenas()
        defer { Self.finishLog() }
        let environment = context.environment
        let clock = try arguments.clock(environment: environment)
        // Before anything opens (and so creates or migrates) the file: a malformed one is never
        // served, a missing one not created when the processor's ledger knows payments.
        try ServeDatabaseChecks.run(arguments: arguments, environment: environment)
        // SQLite (a file) or PostgreSQL (a URL): every store below comes from this factory.
        let stores = try arguments.openStoreFactory(environment: environment, clock: clock)
        let service = try arguments.openPaymentService(environment: environment, clock: clock, stores: stores)
        // The first API key is made after the port is bound (below): a server that cannot
        // listen must not spend the key it would print only once.
        let keys = try stores.openAPIKeyStore()
        // Apple Pay tokens on /pay and on confirm: Apple Root CA - G3 and the configured merchant
        // keys, or, with --test-root, PayPanel's test identity (never in production).
        let verification = try arguments.tokenVerification(console: context.console)
        if verification.trust.isTestMode {
            Self.writeError("test mode: Apple Pay tokens signed by PayPanel's test root are accepted (--test-root); never use this in production")
        }
        var setup = PaymentsServerSetup(
            stores: stores, service: service, clock: clock, tokenVerifier: verification.verifier,
            processorLedger: try arguments.processorLedgerReader(environment: environment, clock: clock))
        setup.log = { line in Self.writeError(JSONWriter.string(line)) }
        // The device simulator page and its demo key exist in test mode only (docs/demo.md);
        // otherwise its routes answer 404 with a page that says how to turn it on.
        if verification.trust.isTestMode {
            setup.demoSealing = DemoWalletSealing(clock: clock)
        }
        try WebhookServeOptions.apply(to: &setup, arguments: arguments, environment: environment)
        // Pushes (docs/notifications.md): devices and the push queue on a store of their own.
        setup.pushProvider = try arguments.apnsProvider(clock: clock)
        if setup.pushProvider == nil {
            Self.writeError("push: no APNs key (--apns-key-file, --apns-key-id, --apns-team-id): checkouts are not pushed; devices can still be registered")
        }
        setup.defaultPushTopic = arguments.value(APNsOptions.topic.name)

        // Before the server starts: a signal sent right after the 'listening' line is not lost.
        let signals = TerminationSignals()
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.accessLog = { entry in Self.writeError(AccessLogLine.json(entry)) }
        // The library builds the routes and the worker's duties from the setup.
        let assembly = try PaymentsServerAssembly(setup)
        let server: PaymentsServer
        do {
            server = try PaymentsServer.start(
                assembly, configuration: configuration, workerInterval: workerInterval,
                workerReport: { event in Self.writeError(WorkerLogLine.line(event)) })
        } catch let error as HTTPServerError {
            throw ListenFailure.failure(error, port: port)
        }
        do {
            try Self.ensureKey(store: keys, clock: clock, console: context.console)
        } catch {
            await server.shutdown(grace: .zero)
            throw error
        }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
        // Before the listening line: once it is out, the processor knows where to send.
        if let publicURL = arguments.value(WebhookServeOptions.publicURL.name) {
            let secret = try await ProcessorWebhookSelfRegistration.register(
                publicURL: publicURL == "auto" ? url : publicURL, arguments: arguments, environment: environment)
            setup.processorWebhookSecret.set(secret)
        }
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
    static func ensureKey(store: any APIKeyStore, clock: any WallClock, console: Console) throws {
        let ring = APIKeyRing(store: store)
        guard try !ring.hasActiveKey() else { return }
        let created = try ring.create(name: "default", at: clock.now())
        console.printError("API key created (shown once; 'paypanel keys create' makes more): \(created.key) id=\(created.record.id)")
    }

    /// Standard error for the servers' log lines: the access log is called on the server's
    /// event-loop thread, which must never wait for whoever reads the log (a full pipe), so
    /// lines are queued and written by a thread of their own; past 10,000 waiting lines they
    /// are dropped and counted (`LogLineWriter`). `serve` and `processor serve` write out what
    /// waits before they exit (`finishLog`).
    static let standardErrorLog = LogLineWriter(descriptor: STDERR_FILENO, name: "log-writer")

    /// Queues one line for standard error; `line` is built on the log writer's thread.
    @Sendable static func writeError(_ line: @escaping @Sendable @autoclosure () -> String) {
        standardErrorLog.write(line())
    }

    /// Writes the log lines still waiting, for at most two seconds, before the process exits.
    static func finishLog() {
        standardErrorLog.finish(within: .seconds(2))
    }
}
