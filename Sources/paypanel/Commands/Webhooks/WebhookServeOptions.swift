import Foundation
import PayPanel
import PayPanelServer

/// What `serve` adds for events and webhooks: its two options, and the relay and routes
/// composed from them (kept here so ServeCommand only gains a few lines).
enum WebhookServeOptions {
    static let allowPrivate = OptionSpec.flag(
        "--allow-private-webhooks",
        help: "Let webhooks go to plain http and to loopback, private and link-local addresses (development and tests only).")
    static let processorSecret = OptionSpec.value(
        "--processor-webhook-secret", "secret",
        help: "The secret the processor signs its webhooks with (Stripe-Signature), for POST /v1/processor/webhooks (or $PAYPANEL_PROCESSOR_WEBHOOK_SECRET).")
    static let processorSecretEnvironmentVariable = "PAYPANEL_PROCESSOR_WEBHOOK_SECRET"
    static let publicURL = OptionSpec.value(
        "--public-url", "url",
        help: "Where the processor reaches this server (http://127.0.0.1:8080, or 'auto': the address serve listens on): with --processor, serve registers <url>/v1/processor/webhooks there at start and keeps the secret in memory only.")

    static var all: [OptionSpec] { [allowPrivate, processorSecret, publicURL] }

    struct Composed {
        let relay: WebhookRelay
        let providers: [any APIRouteProvider]
        /// Filled at start by `--public-url` (`ProcessorWebhookSelfRegistration`).
        let processorSecret: ProcessorWebhookSecret
    }

    /// The relay (own connection, URLSession, the destination check) and the routes.
    static func compose(arguments: ParsedArguments, api: PaymentsAPI, environment: [String: String], clock: any WallClock) throws -> Composed {
        let opening = try WebhookOpening(arguments: arguments, environment: environment, clock: clock)
        let policy = WebhookDestinationPolicy(allowPrivate: arguments.flag(allowPrivate.name))
        let relay = WebhookRelay(
            store: SQLiteWebhookStore(database: try opening.openDatabase()), box: opening.box, transport: URLSessionWebhookTransport(),
            policy: policy, clock: clock, render: EventObjects.render)
        let desk = WebhookDesk(database: try opening.openDatabase(), box: opening.box, relay: relay, clock: clock)
        var secret = arguments.value(processorSecret.name)
        if secret?.isEmpty ?? true { secret = environment[processorSecretEnvironmentVariable] }
        if let given = secret, given.utf8.count < 16 {
            throw UsageError("'--processor-webhook-secret' must be at least 16 characters (the processor's whsec_… secret)")
        }
        if arguments.value(publicURL.name) != nil {
            guard secret?.isEmpty ?? true else {
                throw UsageError("give either '--processor-webhook-secret' or '--public-url' (which registers and gets a secret), not both")
            }
            guard try arguments.httpProcessor(environment: environment) != nil else {
                throw UsageError("'--public-url' registers for the processor's webhooks, so it needs '--processor <url>' (or $PAYPANEL_PROCESSOR_URL)")
            }
        }
        let processorSecret = ProcessorWebhookSecret(secret?.isEmpty == false ? secret : nil)
        let processorWebhooks = ProcessorWebhooksAPI(service: api.service, secret: processorSecret, clock: clock)
        return Composed(relay: relay, providers: [EventsAPI(desk: desk, api: api), processorWebhooks], processorSecret: processorSecret)
    }

    static func relayLine(_ report: RelayPassReport?, _ error: (any Error)?) -> String {
        var members: [(String, JSONValue)] = [("worker", "webhooks")]
        if let report {
            members += [("published", .number(report.published)), ("delivered", .number(report.delivered)),
                        ("retrying", .number(report.retrying)), ("failed", .number(report.failed)), ("disabled", .number(report.disabled))]
        }
        if let error { members.append(("error", .string((error as? any PayPanelError)?.code ?? "internal_error"))) }
        return JSONWriter.string(.orderedObject(members))
    }
}

/// The payments database and its webhook key file, as the webhook commands open them.
struct WebhookOpening {
    let databasePath: String
    let box: WebhookSecretBox
    let clock: any WallClock

    init(arguments: ParsedArguments, environment: [String: String], clock: any WallClock) throws {
        databasePath = arguments.databasePath(environment: environment)
        self.clock = clock
        // Migrate first, so the key file is only made beside a real payments database.
        _ = try Database.openMigrated(path: databasePath, set: .main, clock: clock)
        box = try WebhookSecretBox(masterKey: try WebhookKeyFile.loadOrCreate(path: WebhookKeyFile.path(forDatabase: databasePath)))
    }

    func openDatabase() throws -> Database {
        try Database.openMigrated(path: databasePath, set: .main, clock: clock)
    }

    /// The endpoints, on a connection of their own.
    func endpoints() throws -> WebhookEndpoints {
        WebhookEndpoints(store: SQLiteWebhookStore(database: try openDatabase()), box: box)
    }

    /// Publishes pending outbox messages as events (what the serve worker does each pass), so
    /// the commands never show a list that lags behind the payments.
    func publishPending() async throws {
        let relay = WebhookRelay(
            store: SQLiteWebhookStore(database: try openDatabase()), box: box, transport: NoTransport(),
            policy: WebhookDestinationPolicy(allowPrivate: false), clock: clock, render: EventObjects.render)
        _ = try await relay.publishPending()
    }
}

/// The commands only publish: nothing is ever sent from them.
private struct NoTransport: WebhookTransport {
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        .failed("not sent by this command")
    }
}
