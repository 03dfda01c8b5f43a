import Foundation
import MockProcessor
import MockProcessorServer
import PayPanel
import PayPanelHTTP
import PayPanelServer

/// `paypanel processor serve [--host H] [--port P] [--processor-db PATH] [--latency L] [--now TIME] [--json]`
struct ProcessorServeCommand: CLICommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the mock processor over HTTP as a Stripe-compatible subset, for other programs' tests.",
        discussion: """
            Prints one line, 'listening on http://HOST:PORT' (with --json one JSON object). Point a Stripe SDK's \
            base URL at it and use any sk_test_… key: each key is its own isolated account. The ledger is the \
            same file the in-process mock uses. Test endpoints under /_mock: ledger, reset, triggers, chains, \
            clock/advance, 3ds/{id}, webhook_deliveries, events/{id}/resend. Webhook endpoints (POST /v1/webhook_endpoints) \
            get signed Stripe-style events for what the mock decides late. SIGTERM or SIGINT: stop accepting, finish requests in flight (up to 10 s), \
            exit 0. See docs/mock-processor.md.
            """,
        options: [
            .value("--host", "address", help: "The address to listen on (default: 127.0.0.1)."),
            .value("--port", "port", help: "The port to listen on; 0 picks a free one (default: 12111)."),
            .value("--hold", "seconds", help: "How long a request whose answer is lost (TIMEOUT_THEN_*) is held before its connection is closed (default: 300)."),
            CommonOptions.processorDatabase, CommonOptions.latency, CommonOptions.latencySeed, CommonOptions.now, CommonOptions.json,
        ])

    let arguments: ParsedArguments
    let host: String
    let port: Int
    let hold: Duration
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        host = arguments.value("--host") ?? "127.0.0.1"
        port = try arguments.integer("--port", in: 0...65535) ?? 12111
        hold = .seconds(try arguments.integer("--hold", in: 1...3600) ?? 300)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        ServerMemory.limitMallocArenas()
        defer { ServeCommand.finishLog() }
        let environment = context.environment
        let clock = try arguments.clock(environment: environment)
        // Real sleeping even with --now: the clients on the other end wait in real time.
        let processor = try arguments.openMockProcessor(environment: environment, clock: clock, sleeper: TaskSleeper())
        let signals = TerminationSignals()
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.limits.maxBodyBytes = 256 * 1024
        configuration.accessLog = { entry in ServeCommand.writeError(AccessLogLine.json(entry)) }
        var options = ProcessorServer.Options()
        options.holdLimit = hold
        let server: ProcessorServer
        do {
            server = try await ProcessorServer.start(processor: processor, clock: clock, configuration: configuration, options: options)
        } catch let error as HTTPServerError {
            throw ListenFailure.failure(error, port: port)
        }
        for name in server.unreadableSnapshots {
            context.console.printError("warning: the saved account data \(name) cannot be read and is left out (the ledger's payments are intact)")
        }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
        if json {
            context.console.printJSON(.orderedObject([("listening", .string(url)), ("host", .string(host)), ("port", .number(server.port))]), pretty: false)
        } else {
            context.console.print("listening on \(url)")
        }
        context.console.flush()
        _ = await server.http.shutdownOnTermination(signals, grace: .seconds(10))
        return .success
    }
}
