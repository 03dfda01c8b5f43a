#if PostgreSQL
import Foundation
import PayPanel

extension MigrationSet {
    /// The payments database's migrations in PostgreSQL's dialect (`Migrations/postgresql/`):
    /// the same numbers and names as the SQLite files, each written for PostgreSQL.
    public static let postgreSQL = embedded(EmbeddedMigrationFiles.all, folder: "postgresql", name: "postgresql", applicationID: 0)
}

/// Applies the PostgreSQL `MigrationSet` to one schema, with the SQLite `Migrator`'s rules:
/// each migration in its own transaction with its `schema_migrations` row; a schema holding a
/// migration this program does not know, or a changed one, is refused before anything changes;
/// a schema with tables but no bookkeeping is not a PayPanel database.
///
/// Several servers starting at once take turns: the whole run holds a session advisory lock
/// named after the schema (`pg_advisory_lock`), and each migration is re-checked inside it.
struct PostgreSQLMigrator {
    let set: MigrationSet
    let clock: any WallClock

    typealias S = PostgreSQLStatement

    static let lock = S("migrate.lock", "SELECT pg_catalog.pg_advisory_lock(pg_catalog.hashtextextended('paypanel migrate ' || $1, 0))")
    static let unlock = S("migrate.unlock", "SELECT pg_catalog.pg_advisory_unlock(pg_catalog.hashtextextended('paypanel migrate ' || $1, 0))")
    static let hasBookkeeping = S("migrate.has_table", "SELECT pg_catalog.to_regclass('schema_migrations') IS NOT NULL")
    static let applied = S("migrate.applied", SharedSQL.appliedMigrations.postgreSQL)
    static let tableCount = S("migrate.table_count", """
        SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = pg_catalog.current_schema()
        """)
    static let record = S("migrate.record", SharedSQL.insertAppliedMigration.postgreSQL)
    static let schemaExists = S("migrate.schema_exists", "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1")

    /// Creates `schema` when missing and applies every pending migration; returns those applied now.
    @discardableResult
    func migrate(_ connection: PostgreSQLConnection, schema: String) throws -> [String] {
        try connection.execute(Self.lock, [schema])
        defer { _ = try? connection.execute(Self.unlock, [schema]) }
        if try connection.execute(Self.schemaExists, [schema]).rows.isEmpty {
            // An identifier cannot be a parameter: `validSchema` allows only [a-z_][a-z0-9_]*,
            // so the quoted name below can hold nothing but those characters.
            try connection.executeScript("CREATE SCHEMA IF NOT EXISTS \"\(try Self.validSchema(schema))\"", name: "migrate.create_schema")
        }
        let alreadyApplied = Set(try verify(connection).map(\.identifier))
        var appliedNow: [String] = []
        for migration in set.migrations where !alreadyApplied.contains(migration.identifier) {
            try connection.executeScript("BEGIN", name: "migrate.begin")
            do {
                try connection.executeScript(migration.sql, name: "migration \(migration.identifier)")
                try connection.execute(Self.record, [migration.identifier, migration.checksum, clock.now()])
                try connection.executeScript("COMMIT", name: "migrate.commit")
            } catch {
                _ = try? connection.executeScript("ROLLBACK", name: "migrate.rollback")
                throw error
            }
            appliedNow.append(migration.identifier)
        }
        try verify(connection)
        return appliedNow
    }

    /// Refuses unknown or changed migrations and schemas that are not PayPanel's.
    @discardableResult
    func verify(_ connection: PostgreSQLConnection) throws -> [Migrator.AppliedMigration] {
        let hasTable = try connection.execute(Self.hasBookkeeping, []).rows.first?.bool(0) ?? false
        guard hasTable else {
            if (try connection.execute(Self.tableCount, []).rows.first?.int(0) ?? 0) > 0 {
                throw MigrationError(reason: .notAPayPanelDatabase(set: "main"))
            }
            return []
        }
        let applied = try connection.execute(Self.applied, []).rows.map { row in
            Migrator.AppliedMigration(
                identifier: row.string(0), checksum: row.string(1), appliedAt: Timestamp.date(epochMilliseconds: row.int64(2)))
        }
        for record in applied {
            guard let known = set.migrations.first(where: { $0.identifier == record.identifier }) else {
                throw MigrationError(reason: .unknownMigration(record.identifier))
            }
            if known.checksum != record.checksum { throw MigrationError(reason: .checksumChanged(record.identifier)) }
        }
        return applied
    }

    /// `schema` when it is a plain lower-case identifier of at most 63 bytes.
    static func validSchema(_ schema: String) throws(PostgreSQLError) -> String {
        let bytes = Array(schema.utf8)
        let valid = (1...63).contains(bytes.count)
            && bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
            && !(0x30...0x39).contains(bytes[0])
        guard valid else {
            throw PostgreSQLError(
                kind: .configuration, statement: "schema",
                detail: "the PostgreSQL schema name must be 1 to 63 lower-case letters, digits and underscores, not starting with a digit")
        }
        return schema
    }
}
#endif
