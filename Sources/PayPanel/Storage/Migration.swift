/// One forward-only schema change: a `Migrations/NNNN_name.sql` file embedded at build time.
/// Once shipped it is never edited; its checksum is recorded so an edit is noticed.
package struct Migration: Sendable, Equatable {
    /// The file name without `.sql`, e.g. `0001_init`. Sorting by it gives the order.
    package let identifier: String
    package let sql: String

    package init(identifier: String, sql: String) {
        self.identifier = identifier
        self.sql = sql
    }

    /// SHA-256 of the SQL text, hex.
    package var checksum: String { SHA256.hash(sql).hexString }

    /// The first line a migration starts with when it rebuilds tables (SQLite cannot change a
    /// table's constraints in place): the SQLite migrator then runs it with foreign keys off
    /// and checks every reference before it commits, SQLite's own procedure for such changes.
    package static let rebuildsTablesMarker = "-- paypanel: rebuilds tables"

    /// True when the file starts with `rebuildsTablesMarker`.
    package var rebuildsTables: Bool { sql.hasPrefix(Self.rebuildsTablesMarker) }
}

/// The ordered migrations of one database kind: `main` (the payments database, top-level
/// `Migrations/*.sql`) or a named set in a subfolder (`Migrations/processor/*.sql`, the mock
/// processor's ledger, which the `MockProcessor` target embeds and names).
public struct MigrationSet: Sendable {
    public let name: String
    /// The `PRAGMA application_id` the set's first migration stamps on the file, so one kind
    /// of database is never mistaken for another.
    public let applicationID: Int32
    package let migrations: [Migration]

    package init(name: String, applicationID: Int32, migrations: [Migration]) {
        self.name = name
        self.applicationID = applicationID
        self.migrations = migrations.sorted { $0.identifier < $1.identifier }
    }

    /// The payments database's migrations ('PAYP').
    public static let main = embedded(EmbeddedMigrationFiles.all, folder: nil, name: "main", applicationID: 0x5041_5950)

    /// The files of `embedded` (paths relative to `Migrations/`) directly inside `folder` (nil:
    /// the top level). Each target that carries a schema embeds its own files and names its set.
    package static func embedded(
        _ embedded: [(path: String, sql: String)], folder: String?, name: String, applicationID: Int32
    ) -> MigrationSet {
        let prefix = folder.map { $0 + "/" } ?? ""
        let migrations = embedded.compactMap { file -> Migration? in
            guard file.path.hasPrefix(prefix), file.path.hasSuffix(".sql") else { return nil }
            let rest = file.path.dropFirst(prefix.count)
            guard !rest.contains("/") else { return nil }
            return Migration(identifier: String(rest.dropLast(4)), sql: file.sql)
        }
        return MigrationSet(name: name, applicationID: applicationID, migrations: migrations)
    }
}
