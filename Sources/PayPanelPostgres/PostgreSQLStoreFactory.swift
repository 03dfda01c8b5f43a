#if PostgreSQL
import Foundation
import PayPanel

/// The stores of one PostgreSQL schema, all on one small connection pool. Opening the factory
/// migrates the schema once (under the advisory lock); the stores it opens only verify.
public final class PostgreSQLStoreFactory: PaymentStoreFactory {
    let pool: PostgreSQLConnectionPool
    let clock: any WallClock

    /// Connects to `url`, creates `schema` when missing and applies the embedded migrations.
    public init(url: String, schema: String = "public", clock: any WallClock = SystemClock()) throws {
        pool = PostgreSQLConnectionPool(conninfo: url, schema: try PostgreSQLMigrator.validSchema(schema), idleCapacity: 8)
        self.clock = clock
        _ = try pool.withConnection { try PostgreSQLMigrator(set: .postgreSQL, clock: clock).migrate($0, schema: pool.schema) }
    }

    /// Round trips to the server so far by every store this factory opened, and its migration
    /// (`PostgreSQLRoundTrips`).
    package var roundTrips: Int { pool.roundTrips.total }

    /// A payments store on the factory's pool.
    public func openPostgreSQLStore() throws -> PostgreSQLPaymentStore {
        try PostgreSQLPaymentStore(pool: pool, migrate: false, clock: clock)
    }

    public func openPaymentStore() throws -> sending any PaymentStore { try openPostgreSQLStore() }
    package func openAPIKeyStore() throws -> sending any APIKeyStore { try openPostgreSQLStore() }

    /// The notification schedule, in the same schema.
    public func openNotificationStore() throws -> PostgreSQLNotificationStore {
        PostgreSQLNotificationStore(sharingConnectionsWith: try openPostgreSQLStore())
    }

    /// Events and webhooks, in the same schema, on the same pool.
    package func openWebhookStore() throws -> sending any WebhookStore {
        PostgreSQLWebhookStore(sharingConnectionsWith: try openPostgreSQLStore())
    }

    /// Devices and the push queue, in the same schema, on the same pool.
    package func openDeviceStore() throws -> sending any DeviceStore {
        PostgreSQLDeviceStore(sharingConnectionsWith: try openPostgreSQLStore())
    }

    public func notReadyReason() -> String? { readiness()?.reason }

    package func readiness() -> StoreNotReady? {
        do {
            return try openPostgreSQLStore().readiness()
        } catch {
            return StoreNotReady(fault: (error as? any StoreFaultError)?.storeFault,
                                 reason: "the payments database cannot be read (\((error as? any PayPanelError)?.code ?? "error"))")
        }
    }
}
#endif
