import Foundation
import PayPanel
import Synchronization
#if PostgreSQL
import PayPanelPostgres
#endif

/// The PostgreSQL schemas a soak or a benchmark makes for itself on the database its `--db`
/// names: each one fresh (a prefix, the run's label, a random suffix), created and migrated
/// when asked for, all dropped by `dropAll()`. A run never touches the schema the URL itself
/// names, so it cannot damage a database someone uses.
final class PostgreSQLRunSchemas: Sendable {
    /// The libpq URL, without PayPanel's `schema` parameter.
    let url: String
    let prefix: String
    private let created = Mutex<[String]>([])

    /// `database` must be a `postgresql://` URL (`command` and `fallback` word the refusal).
    init(database: String, prefix: String, command: String, fallback: String) throws {
        guard case .postgreSQL(let url, _) = try StoreLocation(database) else {
            throw UsageError("'--db' for '\(command)' is a postgresql:// URL; without it \(fallback)")
        }
        #if !PostgreSQL
        _ = (url, prefix)
        throw CLIFailure(
            code: "postgresql_not_built",
            message: "this paypanel was built without PostgreSQL support, so '\(command)' cannot use a postgresql:// database: build it with 'swift build --traits PostgreSQL'")
        #else
        self.url = url
        self.prefix = prefix
        #endif
    }

    /// The schemas made so far.
    var schemas: [String] { created.withLock { $0 } }

    #if PostgreSQL
    /// A new schema for `label` (lowercase letters, digits, underscores), migrated: what a
    /// child process is given as `--db` / `$PAYPANEL_DB`, and the stores of it for this one.
    func fresh(_ label: String, clock: any WallClock) throws -> (argument: String, stores: PostgreSQLStoreFactory) {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let schema = "\(prefix)_\(label)_\(suffix)"
        created.withLock { $0.append(schema) }
        let stores = try PostgreSQLStoreFactory(url: url, schema: schema, clock: clock)
        return (url + (url.contains("?") ? "&" : "?") + "schema=" + schema, stores)
    }

    /// Drops every schema made (best effort: the server may be gone).
    func dropAll() {
        for schema in created.withLock({ $0 }) {
            try? PostgreSQLSchemaMaintenance.dropSchema(url: url, schema: schema)
        }
    }
    #else
    func dropAll() {}
    #endif
}
