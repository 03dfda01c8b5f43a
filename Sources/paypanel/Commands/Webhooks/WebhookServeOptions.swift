import Foundation
import PayPanel
import PayPanelServer

/// What `serve` takes for events and webhooks: its options, read into the server's setup
/// (`PaymentsServerAssembly` builds the relay and the routes from it).
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

    static var all: [OptionSpec] { [allowPrivate, processorSecret, publicURL, WebhookKeyOptions.keyFile] }

    /// Reads the webhook options into `setup`: the processor's signing secret, the key that
    /// seals endpoint secrets (`--webhook-key-file`, or the file beside a SQLite database), and
    /// where webhooks may go. On PostgreSQL without a key file the setup gets no key, and serve
    /// says in one line what that turns off.
    static func apply(to setup: inout PaymentsServerSetup, arguments: ParsedArguments, environment: [String: String]) throws {
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
        setup.processorWebhookSecret = ProcessorWebhookSecret(secret?.isEmpty == false ? secret : nil)
        let opening = try WebhookOpening(arguments: arguments, environment: environment, stores: setup.stores, clock: setup.clock)
        guard let box = try opening.boxIfConfigured() else {
            ServeCommand.writeError(
                "webhooks: no webhook key file (\(WebhookKeyOptions.keyFile.name) or $\(WebhookKeyOptions.environmentVariable)), which PostgreSQL needs: /v1/events and /v1/webhook_endpoints are off and this server sends no webhooks (docs/scaling.md)")
            setup.webhookBox = nil
            return
        }
        try opening.checkKeyOpensTheEndpoints(box)
        setup.webhookBox = box
        setup.webhookDestinations = WebhookDestinationPolicy(allowPrivate: arguments.flag(allowPrivate.name))
    }
}

/// The payments database (SQLite or PostgreSQL, through the store factory) and the webhook
/// key, as serve and the webhook commands open them.
struct WebhookOpening {
    let stores: any PaymentStoreFactory
    let key: WebhookKeyOptions.Source
    let clock: any WallClock
    /// The SQLite default key, read or created when the opening is made (as before there was
    /// a choice), so the file only appears beside a real payments database.
    private let eagerBox: WebhookSecretBox?

    init(arguments: ParsedArguments, environment: [String: String], stores: (any PaymentStoreFactory)? = nil, clock: any WallClock) throws {
        let location = try arguments.storeLocation(environment: environment)
        // Opening the factory migrates the database (SQLite: on the first store opened).
        self.stores = try stores ?? arguments.openStoreFactory(environment: environment, clock: clock)
        self.clock = clock
        key = WebhookKeyOptions.source(arguments: arguments, environment: environment, location: location)
        if case .besideDatabase(let path) = key {
            _ = try self.stores.openWebhookStore()
            eagerBox = try WebhookSecretBox(masterKey: try WebhookKeyFile.loadOrCreate(path: path))
        } else {
            eagerBox = nil
        }
    }

    /// The box, or nil when no key is configured (PostgreSQL without a key file).
    func boxIfConfigured() throws -> WebhookSecretBox? {
        switch key {
        case .besideDatabase: return eagerBox
        case .file(let path): return try WebhookSecretBox(masterKey: try WebhookKeyOptions.load(path))
        case .missing: return nil
        }
    }

    /// The box, or a refusal saying where the key must come from.
    func box() throws -> WebhookSecretBox {
        guard let box = try boxIfConfigured() else { throw WebhookKeyOptions.missingKeyFailure() }
        return box
    }

    /// Refuses a key file that does not open the secrets already sealed in the database: the
    /// servers were given different files, and every delivery would fail to sign.
    func checkKeyOpensTheEndpoints(_ box: WebhookSecretBox) throws {
        guard case .file(let path) = key, let endpoint = try stores.openWebhookStore().endpoints().first else { return }
        do {
            _ = try box.open(endpoint.sealedSecret, endpointID: endpoint.id, version: endpoint.secretVersion)
        } catch {
            throw CLIFailure(
                code: "webhook_key_mismatch",
                message: "the webhook key file \(path) does not open the secrets of the endpoints in this database (\(endpoint.id)): every server must be given the same key file; with the key lost, remove and re-add the endpoints")
        }
    }

    /// The endpoints, on a store of their own.
    func endpoints() throws -> WebhookEndpoints {
        WebhookEndpoints(store: try stores.openWebhookStore(), box: try box())
    }

    /// A webhook store of its own, for reading events and deliveries.
    func openStore() throws -> any WebhookStore {
        try stores.openWebhookStore()
    }

    /// Publishes pending outbox messages as events (what the serve worker does each pass), so
    /// the commands never show a list that lags behind the payments.
    func publishPending() async throws {
        let relay = WebhookRelay(
            store: try stores.openWebhookStore(), box: try box(), transport: NoTransport(),
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
