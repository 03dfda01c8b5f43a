import Foundation
import PayPanel
import PayPanelHTTP

/// The routes' window on events and webhook endpoints: one actor owning its own webhook store
/// (a store has one owner: a SQLite connection, or a PostgreSQL store on the shared pool), and
/// the relay, whose `publishPending` runs before a list so the newest changes are already events.
public actor WebhookDesk {
    /// Its own thread: the synchronous store calls below run on it, never on the cooperative
    /// pool (`ActorThread`); their flushes are waited for suspended (`stored`).
    private let thread = ActorThread(name: "webhook-desk")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    let store: any WebhookStore
    let endpoints: WebhookEndpoints
    let relay: WebhookRelay?
    let clock: any WallClock

    /// A desk on its own connection `database`, sealing secrets with `box`.
    package init(database: sending Database, box: WebhookSecretBox, relay: WebhookRelay?, clock: any WallClock) {
        self.init(store: SQLiteWebhookStore(database: database), box: box, relay: relay, clock: clock)
    }

    /// A desk on a webhook store of its own (`PaymentStoreFactory.openWebhookStore`).
    package init(store: sending any WebhookStore, box: WebhookSecretBox, relay: WebhookRelay?, clock: any WallClock) {
        self.store = store
        self.endpoints = WebhookEndpoints(store: store, box: box)
        self.relay = relay
        self.clock = clock
    }

    package func events(type: String?, page: EventPage, limit: Int) async throws -> [StoredEvent] {
        _ = try await relay?.publishPending()
        return try await stored { try store.events(type: type, page: page, limit: limit) }
    }

    package func event(_ id: String) async throws -> StoredEvent? {
        _ = try await relay?.publishPending()
        return try await stored { try store.event(id) }
    }

    package func deliveries(ofEvent id: String) async throws -> [WebhookDeliveryRecord] {
        try await stored { try store.deliveries(ofEvent: id) }
    }

    package func create(url: String, eventTypes: [String]) async throws -> CreatedWebhookEndpoint {
        try await stored { try endpoints.create(url: url, eventTypes: eventTypes, at: clock.now()) }
    }

    package func endpoint(_ id: String) async throws -> WebhookEndpointRecord { try await stored { try endpoints.endpoint(id) } }

    package func list() async throws -> [WebhookEndpointRecord] { try await stored { try endpoints.list() } }

    public func remove(_ id: String) async throws { try await stored { try endpoints.remove(id, at: clock.now()) } }

    /// Runs `body`, calls of the store (through `endpoints` too), and waits for the flushes they
    /// need suspended: the routes' other calls on the desk go on meanwhile, and their commits
    /// share the flush. (They once waited holding the desk's thread.)
    func stored<T>(_ body: () throws -> T) async throws -> T {
        try await store.awaitingFlush(body)
    }
}
