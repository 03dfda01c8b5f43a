import Foundation
import PayPanel
import PayPanelHTTP

/// What a payments server is made of, as typed values. A front end (`paypanel serve`) reads its
/// options and environment into one of these and hands it to `PaymentsServerAssembly`: the
/// library, not the front end, decides which routes are mounted on what and which duties the
/// worker runs, so a program that embeds the server gets exactly what `serve` runs.
package struct PaymentsServerSetup: Sendable {
    /// The payments database: every store below is opened from it (SQLite or PostgreSQL).
    package var stores: any PaymentStoreFactory
    package var service: PaymentService
    package var clock: any WallClock
    /// Checks and opens Apple Pay tokens, on the device's `/pay` and on `confirm`.
    package var tokenVerifier: ApplePayTokenVerifier
    /// The device simulator's wallet, in test mode only. Nil: the simulator's routes answer 404
    /// with a page that says how to turn it on, and no demo key exists.
    package var demoSealing: (any DemoTokenSealing)?
    /// The key that seals webhook endpoints' secrets. Nil (PostgreSQL without a key file): no
    /// `/v1/events`, no `/v1/webhook_endpoints`, and no webhooks are sent.
    package var webhookBox: WebhookSecretBox?
    /// Where webhooks may go (by default public https addresses only).
    package var webhookDestinations = WebhookDestinationPolicy(allowPrivate: false)
    /// The secret the processor signs its webhooks with; may be filled after start.
    package var processorWebhookSecret = ProcessorWebhookSecret()
    /// APNs credentials; nil: devices can still be registered, nothing is pushed.
    package var pushProvider: APNsProvider?
    /// The APNs topic of a device registered without one.
    package var defaultPushTopic: String?
    /// The processor's own ledger, for the console.
    package var processorLedger: any ProcessorLedgerReading
    /// Lines for the operator about what went wrong outside any response (`PaymentsAPI.log`).
    package var log: @Sendable (JSONValue) -> Void = { _ in }

    package init(
        stores: any PaymentStoreFactory, service: PaymentService, clock: any WallClock, tokenVerifier: ApplePayTokenVerifier,
        processorLedger: any ProcessorLedgerReading
    ) {
        self.stores = stores
        self.service = service
        self.clock = clock
        self.tokenVerifier = tokenVerifier
        self.processorLedger = processorLedger
    }
}

/// Every part of a payments server, built and wired from a `PaymentsServerSetup`: the API, the
/// route providers in the order `serve` mounts them, and the worker's duties. `router` is the
/// router the server runs; tests that probe every route read it from here, not from a copy.
package struct PaymentsServerAssembly: Sendable {
    package let api: PaymentsAPI
    /// Open checkouts: the device's `/pay` and the worker's expiry share this one.
    package let desk: CheckoutDesk
    package let providers: [any APIRouteProvider]
    package let duties: WorkerDuties

    package init(_ setup: PaymentsServerSetup) throws {
        var api = try PaymentsAPI(service: setup.service, stores: setup.stores, clock: setup.clock)
        api.log = setup.log
        let decryptor = ApplePayTokenDecryptor(verifier: setup.tokenVerifier)
        api.tokenDecryptor = decryptor
        // The demo key is one of the API's credentials: set before anything copies `api`.
        let demo: any APIRouteProvider
        if let sealing = setup.demoSealing {
            let key = DemoKey()
            api.demoKey = key
            demo = DemoSite(key: key, sealing: sealing)
        } else {
            demo = DemoSiteOff()
        }
        // The checkout desk runs on the service's thread and keeps its checkouts in its store.
        let desk = CheckoutDesk(service: setup.service, clock: setup.clock)
        // Devices and the push queue on a store of their own.
        let pushes = PushOutbox(store: try setup.stores.openDeviceStore(), provider: setup.pushProvider, clock: setup.clock)
        var providers: [any APIRouteProvider] = [
            CheckoutsAPI(desk: desk, api: api, decryptor: decryptor, pushes: pushes), ConsoleSite(), demo,
        ]
        // Events and webhook endpoints, each on a webhook store of its own (docs/scaling.md).
        var relay: WebhookRelay?
        if let box = setup.webhookBox {
            let webhooks = WebhookRelay(
                store: try setup.stores.openWebhookStore(), box: box, transport: URLSessionWebhookTransport(),
                policy: setup.webhookDestinations, clock: setup.clock, render: EventObjects.render)
            let webhookDesk = WebhookDesk(store: try setup.stores.openWebhookStore(), box: box, relay: webhooks, clock: setup.clock)
            providers.append(EventsAPI(desk: webhookDesk, api: api))
            relay = webhooks
        }
        providers.append(ProcessorWebhooksAPI(service: setup.service, secret: setup.processorWebhookSecret, clock: setup.clock))
        providers.append(DevicesAPI(outbox: pushes, api: api, defaultTopic: setup.defaultPushTopic))
        providers.append(ProcessorLedgerAPI(api: api, ledger: setup.processorLedger))
        self.api = api
        self.desk = desk
        self.providers = providers
        duties = WorkerDuties(checkouts: desk, pushes: pushes, webhooks: relay)
    }

    /// Health, the OpenAPI document and the payments API, then every provider's routes.
    package var router: Router { api.router(adding: providers) }
}

extension PaymentsServer {
    /// Binds and starts serving `assembly`'s router, then starts the worker with its duties.
    package static func start(
        _ assembly: PaymentsServerAssembly, configuration: HTTPServer.Configuration, workerInterval: Duration,
        workerReport: @escaping @Sendable (WorkerEvent) -> Void = { _ in }
    ) throws -> PaymentsServer {
        try start(
            api: assembly.api, configuration: configuration, providers: assembly.providers, workerInterval: workerInterval,
            workerDuties: assembly.duties, workerReport: workerReport)
    }
}
