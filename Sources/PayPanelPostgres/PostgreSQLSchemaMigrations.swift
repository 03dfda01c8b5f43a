#if PostgreSQL
import Foundation
import PayPanel

/// A PostgreSQL schema's migrations as `paypanel db migrate` and `db status` see them: the
/// same rules as the SQLite `Migrator` (see `PostgreSQLMigrator`), on a connection of their own.
public enum PostgreSQLSchemaMigrations {
    static let schemaExists = PostgreSQLStatement("status.schema_exists", "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1")

    /// Creates `schema` when missing and applies the pending migrations (under the schema's
    /// advisory lock, as every server does on start). Returns the identifiers applied now and
    /// the status after.
    package static func migrate(url: String, schema: String, clock: any WallClock = SystemClock()) throws -> (appliedNow: [String], status: Migrator.Status) {
        let migrator = PostgreSQLMigrator(set: .postgreSQL, clock: clock)
        return try pool(url: url, schema: schema).withConnection { connection in
            let appliedNow = try migrator.migrate(connection, schema: schema)
            return (appliedNow, status(applied: try migrator.verify(connection)))
        }
    }

    /// Reads only: whether `schema` exists, and what it has applied and what is pending (every
    /// migration, when it does not exist). A schema this program cannot use is refused with the
    /// same `MigrationError` as `migrate`.
    package static func status(url: String, schema: String) throws -> (schemaExists: Bool, status: Migrator.Status) {
        let migrator = PostgreSQLMigrator(set: .postgreSQL, clock: SystemClock())
        return try pool(url: url, schema: schema).withConnection { connection in
            guard try !connection.execute(schemaExists, [schema]).rows.isEmpty else {
                return (false, status(applied: []))
            }
            return (true, status(applied: try migrator.verify(connection)))
        }
    }

    /// A pool that keeps no idle connection: the one connection closes when the command is done.
    private static func pool(url: String, schema: String) throws -> PostgreSQLConnectionPool {
        PostgreSQLConnectionPool(conninfo: url, schema: try PostgreSQLMigrator.validSchema(schema), idleCapacity: 0)
    }

    private static func status(applied: [Migrator.AppliedMigration]) -> Migrator.Status {
        let pending = MigrationSet.postgreSQL.migrations.filter { migration in !applied.contains { $0.identifier == migration.identifier } }
        return Migrator.Status(applied: applied, pending: pending)
    }
}
#endif
