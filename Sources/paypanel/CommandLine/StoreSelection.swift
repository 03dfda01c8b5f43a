import Foundation
import PayPanel
#if PostgreSQL
import PayPanelPostgres
#endif

/// Which database `--db` (or $PAYPANEL_DB) names: a `postgresql://` (or `postgres://`) URL
/// selects the PostgreSQL store, a `sqlite:` path or a plain path the SQLite file.
enum StoreLocation: Equatable {
    case sqlite(path: String)
    /// `url` without PayPanel's own `schema` query parameter, which names the schema.
    case postgreSQL(url: String, schema: String)

    init(_ text: String) throws {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") {
            self = try Self.postgreSQL(text)
        } else if lowered.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw UsageError("'--db sqlite:' needs a path after 'sqlite:', e.g. sqlite:./paypanel.sqlite") }
            self = .sqlite(path: path)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Splits `?schema=NAME` (PayPanel's, not libpq's) off the URL; the schema defaults to public.
    private static func postgreSQL(_ text: String) throws -> StoreLocation {
        guard var components = URLComponents(string: text) else {
            throw UsageError("'--db': not a valid PostgreSQL URL; use postgresql://USER@HOST:PORT/DATABASE")
        }
        var schema = "public"
        if let items = components.queryItems {
            schema = items.first { $0.name == "schema" }?.value ?? schema
            let rest = items.filter { $0.name != "schema" }
            components.queryItems = rest.isEmpty ? nil : rest
        }
        return .postgreSQL(url: components.string ?? text, schema: schema)
    }

    /// What to show people: a path, or the URL without its password.
    var displayName: String {
        switch self {
        case .sqlite(let path): return path
        case .postgreSQL(let url, let schema):
            var components = URLComponents(string: url)
            if components?.password != nil { components?.password = "***" }
            return (components?.string ?? "postgresql://…") + (schema == "public" ? "" : " (schema \(schema))")
        }
    }
}

extension ParsedArguments {
    /// Where the payments database is: `--db`, else `$PAYPANEL_DB`, else `./paypanel.sqlite`.
    func storeLocation(environment: [String: String]) throws -> StoreLocation {
        try StoreLocation(databasePath(environment: environment))
    }

    /// The payments database as messages name it: the path, or the URL without its password;
    /// nil for a command that has no `--db`.
    func databaseDisplayName(environment: [String: String]) -> String? {
        guard spec.option(named: CommonOptions.database.name) != nil else { return nil }
        return (try? storeLocation(environment: environment))?.displayName ?? databasePath(environment: environment)
    }

    /// The stores of the payments database `--db` names, SQLite or PostgreSQL.
    func openStoreFactory(environment: [String: String], clock: any WallClock) throws -> any PaymentStoreFactory {
        switch try storeLocation(environment: environment) {
        case .sqlite(let path):
            return SQLiteStoreFactory(path: path, clock: clock)
        case .postgreSQL(let url, let schema):
            #if PostgreSQL
            return try PostgreSQLStoreFactory(url: url, schema: schema, clock: clock)
            #else
            _ = (url, schema)
            throw StoreLocation.postgreSQLNotBuilt
            #endif
        }
    }
}

extension StoreLocation {
    /// What a build without the `PostgreSQL` trait says to a `postgresql://` URL.
    static let postgreSQLNotBuilt = CLIFailure(
        code: "postgresql_not_built",
        message: "this paypanel was built without PostgreSQL support, so it cannot open a postgresql:// database: build it with 'swift build --traits PostgreSQL' (or use a SQLite file path)")
}
