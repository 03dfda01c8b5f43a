import Foundation
import PayPanel
import PayPanelHTTP

/// Checks `Authorization: Bearer sk_…` against the stored key hashes, on a connection of its
/// own (the payment service's connection may be inside a long processor call's transaction
/// sequence; a key check never waits behind it). Every request reads the table again, so a
/// revoked key stops working at once, in every process on the file. It also answers
/// readiness: the database is reachable and its migrations are this program's.
actor APIKeyAuthenticator {
    /// Its own thread: the synchronous store calls below block it, never the cooperative pool
    /// (`ActorThread`).
    private let thread = ActorThread(name: "api-keys")
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    private let stores: any PaymentStoreFactory
    private let ring: APIKeyRing

    /// Opens a key store of its own from `stores` for key checks.
    init(stores: any PaymentStoreFactory) throws {
        self.stores = stores
        self.ring = APIKeyRing(store: try stores.openAPIKeyStore())
    }

    /// The active key of the request, or a 401.
    func authenticate(_ authorization: String?) async throws -> APIKeyRecord {
        guard let authorization, !authorization.isEmpty else {
            throw Self.unauthorized("no API key given: send Authorization: Bearer sk_…")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Self.unauthorized("the Authorization header must be Bearer followed by a secret key (sk_…)")
        }
        let presented = String(parts[1]).trimmingCharacters(in: .whitespaces)
        // A demo key that reaches this check is not the running server's: each start of
        // `serve --test-root` makes a new one and other modes have none. The device simulator
        // page holding it needs that said, not advice to create a secret key it must never hold.
        if presented.hasPrefix(DemoKey.prefix) {
            throw Self.unauthorized("this demo key is not this server's: a demo key lasts one run of 'paypanel serve --test-root' and exists only in that mode; restart serve with --test-root and reload /demo for a new one")
        }
        // The read waits for the commits it may have seen to be durable (a key created a moment
        // ago must not open a door a crash would close again); the wait suspends this actor, so
        // the key checks of other requests go on meanwhile instead of queueing behind a flush.
        let ring = self.ring
        guard let record = try await ring.store.awaitingFlush({ try ring.authenticate(presented) }) else {
            // One message for unknown, malformed and revoked keys: the caller learns nothing
            // about which keys exist.
            throw Self.unauthorized("invalid or revoked API key: create one with 'paypanel keys create'")
        }
        return record
    }

    /// Nil when ready; otherwise why not, with the store's fault when one is known.
    func readiness() -> StoreNotReady? {
        stores.readiness()
    }

    private static func unauthorized(_ message: String) -> APIError {
        APIError(status: .unauthorized, kind: .authentication, code: "invalid_api_key", message: message,
                 headers: ["WWW-Authenticate": "Bearer realm=\"paypanel\""])
    }
}
