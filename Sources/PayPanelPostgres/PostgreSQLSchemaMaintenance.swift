#if PostgreSQL
import Foundation
import PayPanel

/// Operations on a whole schema that only tests and tooling need: dropping a test's schema,
/// writing a bookkeeping row by hand to prove the migrator refuses it, and reading what the
/// idempotency keys are stored as.
package enum PostgreSQLSchemaMaintenance {
    /// Drops `schema` and everything in it (a test's own schema, when the test ends).
    package static func dropSchema(url: String, schema: String) throws {
        let name = try PostgreSQLMigrator.validSchema(schema)
        guard name != "public" else { return }
        let pool = PostgreSQLConnectionPool(conninfo: url, schema: name, idleCapacity: 0)
        // An identifier cannot be a parameter; `validSchema` admits only [a-z0-9_].
        try pool.withConnection { try $0.executeScript("DROP SCHEMA IF EXISTS \"\(name)\" CASCADE", name: "schema.drop") }
    }

    static let recordMigration = PostgreSQLStatement(
        "schema.record_migration", "INSERT INTO schema_migrations (identifier, checksum, applied_at) VALUES ($1, $2, 0)")
    static let changeChecksum = PostgreSQLStatement(
        "schema.change_checksum", "UPDATE schema_migrations SET checksum = $2 WHERE identifier = $1")

    /// Records migration `identifier` as applied with `checksum`, as a newer program would.
    package static func recordAppliedMigration(url: String, schema: String, identifier: String, checksum: String) throws {
        let pool = PostgreSQLConnectionPool(conninfo: url, schema: try PostgreSQLMigrator.validSchema(schema), idleCapacity: 0)
        try pool.withConnection { try $0.execute(recordMigration, [identifier, checksum]) }
    }

    static let storedKeys = PostgreSQLStatement("schema.idempotency_keys", "SELECT key FROM idempotency_keys ORDER BY key")

    /// The `key` column of every idempotency key, as stored (`IdempotencyStore.storedKey`).
    package static func storedIdempotencyKeys(url: String, schema: String) throws -> [String] {
        let pool = PostgreSQLConnectionPool(conninfo: url, schema: try PostgreSQLMigrator.validSchema(schema), idleCapacity: 0)
        return try pool.withConnection { try $0.execute(storedKeys, []).rows.map { $0.string(0) } }
    }

    /// Changes the recorded checksum of `identifier`, as an edited migration file would look.
    package static func changeRecordedChecksum(url: String, schema: String, identifier: String, to checksum: String) throws {
        let pool = PostgreSQLConnectionPool(conninfo: url, schema: try PostgreSQLMigrator.validSchema(schema), idleCapacity: 0)
        try pool.withConnection { try $0.execute(changeChecksum, [identifier, checksum]) }
    }
}
#endif
