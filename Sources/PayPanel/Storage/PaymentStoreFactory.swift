import Foundation

/// Opens the stores of one payments database, whichever kind it is: what a front end that
/// needs several of them (`serve`: the checkout service, the checkout desk, the API-key checks,
/// the idempotency keys) holds instead of a file path. Each call opens a new instance, with its
/// own owner; instances of one factory see one database.
///
/// Adopters: `SQLiteStoreFactory` (a file; each store its own connection) and, with the
/// `PostgreSQL` trait, `PostgreSQLStoreFactory` (one schema; every store shares one small
/// connection pool).
public protocol PaymentStoreFactory: Sendable {
    func openPaymentStore() throws -> sending any PaymentStore
    func openCheckoutStore() throws -> sending any CheckoutStore
    func openAPIKeyStore() throws -> sending any APIKeyStore
    /// Events, webhook endpoints and deliveries (migration 0006), for the relay and the routes.
    func openWebhookStore() throws -> sending any WebhookStore
    /// Devices and the push queue (migration 0007).
    func openDeviceStore() throws -> sending any DeviceStore
    /// Nil when the database answers and holds exactly this program's migrations; otherwise
    /// why not, in words for a readiness probe.
    func notReadyReason() -> String?
}

/// The stores of one SQLite payments file, each on a connection of its own (WAL lets them
/// read while one writes). The first open creates and migrates the file.
public struct SQLiteStoreFactory: PaymentStoreFactory {
    public let path: String
    public let clock: any WallClock

    public init(path: String, clock: any WallClock) {
        self.path = path
        self.clock = clock
    }

    public func openPaymentStore() throws -> sending any PaymentStore {
        try SQLitePaymentStore(path: path, clock: clock)
    }

    public func openCheckoutStore() throws -> sending any CheckoutStore {
        try SQLitePaymentStore(path: path, clock: clock)
    }

    public func openAPIKeyStore() throws -> sending any APIKeyStore {
        SQLiteAPIKeyStore(database: try Database.openMigrated(path: path, set: .main, clock: clock))
    }

    public func openWebhookStore() throws -> sending any WebhookStore {
        SQLiteWebhookStore(database: try Database.openMigrated(path: path, set: .main, clock: clock))
    }

    public func openDeviceStore() throws -> sending any DeviceStore {
        SQLiteDeviceStore(database: try Database.openMigrated(path: path, set: .main, clock: clock))
    }

    public func notReadyReason() -> String? {
        do {
            let database = try Database(path: path, options: Database.Options(readOnly: true, create: false))
            _ = try database.queryFirst("SELECT 1", []) { $0.int64(0) }
            let status = try Migrator(set: .main).status(database)
            if !status.pending.isEmpty {
                return "the database lacks \(status.pending.count) migration(s): restart the server to apply them"
            }
            return nil
        } catch {
            return "the payments database cannot be read"
        }
    }
}
