import Foundation
import PayPanel
import TestSupport
import Testing
#if PostgreSQL
import PayPanelPostgres
#endif

/// A fresh, empty, migrated database of one `StoreKind` behind its `PaymentStoreFactory`: what
/// the suites above the payments store (webhooks and their relay, devices and the push outbox)
/// run on, once per kind in `StoreKind.shared`. Every store they open comes from `factory`, so
/// the same test body runs on a SQLite file and on a PostgreSQL schema; a second store from it
/// is a second connection (a second relay, a restarted server, another server's worker).
final class FactoryUnderTest: @unchecked Sendable {
    // Immutable after init: the factory is Sendable, the directory and schema only live.
    let kind: StoreKind
    let factory: any PaymentStoreFactory
    /// The SQLite file's directory (nil on PostgreSQL).
    let directory: TemporaryDirectory?
    /// The PostgreSQL schema (nil on SQLite).
    let schema: String?
    private let keepAlive: AnyObject?

    init(kind: StoreKind, factory: any PaymentStoreFactory, directory: TemporaryDirectory?, schema: String? = nil, keepAlive: AnyObject?) {
        self.kind = kind
        self.factory = factory
        self.directory = directory
        self.schema = schema
        self.keepAlive = keepAlive
    }
}

extension StoreKind {
    /// A fresh database of this kind behind its store factory; only for kinds in `shared`.
    func makeFactory(clock: any WallClock) throws -> FactoryUnderTest {
        switch self {
        case .sqliteFile:
            let directory = try TemporaryDirectory("paypanel-store-factory")
            return FactoryUnderTest(
                kind: self, factory: SQLiteStoreFactory(path: directory.file("payments.sqlite"), clock: clock), directory: directory,
                keepAlive: nil)
        case .sqliteMemory:
            // One connection only: the suites on a factory need several stores on one database.
            throw StoreKindCannotShare(kind: self)
        #if PostgreSQL
        case .postgreSQL:
            let url = try PostgreSQLTestServer.url()
            let schema = PostgreSQLTestServer.freshSchemaName("factory")
            let cleanup = PostgreSQLTestSchema(url: url, schema: schema)
            return FactoryUnderTest(
                kind: self, factory: try PostgreSQLStoreFactory(url: url, schema: schema, clock: clock), directory: nil, schema: schema,
                keepAlive: cleanup)
        #endif
        }
    }
}

struct StoreKindCannotShare: Error, CustomStringConvertible {
    let kind: StoreKind
    var description: String { "\(kind) cannot hold several stores on one database" }
}
