import Foundation

/// Applies a `MigrationSet` to a database, each migration in its own `BEGIN IMMEDIATE`
/// transaction together with its bookkeeping row in `schema_migrations`.
///
/// It refuses, before changing anything, a database that holds a migration this program does
/// not know (a newer PayPanel migrated it) or whose applied migration's text has changed.
/// Several processes may migrate the same file at once: each migration is re-checked inside
/// its transaction, so it is applied exactly once.
package struct Migrator: Sendable {
    package let set: MigrationSet
    package let clock: any WallClock

    package init(set: MigrationSet, clock: any WallClock = SystemClock()) {
        self.set = set
        self.clock = clock
    }

    /// A migration as recorded in a database.
    package struct AppliedMigration: Sendable, Equatable {
        package let identifier: String
        package let checksum: String
        package let appliedAt: Date

        package init(identifier: String, checksum: String, appliedAt: Date) {
            self.identifier = identifier
            self.checksum = checksum
            self.appliedAt = appliedAt
        }
    }

    /// What a database holds compared with this program's migrations.
    package struct Status: Sendable {
        package let applied: [AppliedMigration]
        package let pending: [Migration]

        package init(applied: [AppliedMigration], pending: [Migration]) {
            self.applied = applied
            self.pending = pending
        }
    }

    /// Applies every pending migration; returns the identifiers applied now.
    @discardableResult
    package func migrate(_ database: Database) throws -> [String] {
        let alreadyApplied = Set(try verify(database).map(\.identifier))
        var appliedNow: [String] = []
        // An up-to-date database takes no write lock: a command on a busy file only waits when
        // it has something to write.
        for migration in set.migrations where !alreadyApplied.contains(migration.identifier) {
            // A table rebuild drops tables others reference: with foreign keys on, dropping one
            // would delete (or refuse) its children's references. The pragma has no effect inside
            // a transaction, so it is set around it, and every reference checked before commit.
            if migration.rebuildsTables { try database.execute("PRAGMA foreign_keys = OFF") }
            defer { if migration.rebuildsTables { try? database.execute("PRAGMA foreign_keys = ON") } }
            let applied: Bool = try database.write {
                if try appliedMigrations(database).contains(where: { $0.identifier == migration.identifier }) {
                    return false
                }
                try database.executeScript(migration.sql)
                if migration.rebuildsTables {
                    let broken = try database.queryAll("PRAGMA foreign_key_check") { "\($0.string(0)) row \($0.int64(1)) → \($0.string(2))" }
                    if !broken.isEmpty {
                        throw MigrationError(reason: .brokenReferences(migration.identifier, broken.prefix(5).joined(separator: ", ")))
                    }
                }
                try database.execute(
                    SharedSQL.insertAppliedMigration.sqlite,
                    [migration.identifier, migration.checksum, clock.now()])
                return true
            }
            if applied { appliedNow.append(migration.identifier) }
        }
        try verify(database)
        return appliedNow
    }

    /// Applied and pending migrations, after the same checks as `migrate`.
    package func status(_ database: Database) throws -> Status {
        let applied = try verify(database)
        let pending = set.migrations.filter { migration in !applied.contains { $0.identifier == migration.identifier } }
        return Status(applied: applied, pending: pending)
    }

    /// Refuses unknown or changed migrations and files that are not this kind of database.
    @discardableResult
    func verify(_ database: Database) throws -> [AppliedMigration] {
        // One snapshot for every check: another process may commit a migration in between,
        // and its tables without its bookkeeping row would look like a foreign database.
        try database.read { try verifySnapshot(database) }
    }

    private func verifySnapshot(_ database: Database) throws -> [AppliedMigration] {
        let applied = try appliedMigrations(database)
        let applicationID = try database.queryFirst("PRAGMA application_id") { Int32(truncatingIfNeeded: $0.int64(0)) } ?? 0
        if applicationID != 0 && applicationID != set.applicationID {
            throw MigrationError(reason: .notAPayPanelDatabase(set: set.name))
        }
        if applied.isEmpty {
            let foreignTables = try database.queryFirst(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") { $0.int(0) } ?? 0
            if foreignTables > 0 {
                throw MigrationError(reason: .notAPayPanelDatabase(set: set.name))
            }
        }
        for record in applied {
            guard let known = set.migrations.first(where: { $0.identifier == record.identifier }) else {
                throw MigrationError(reason: .unknownMigration(record.identifier))
            }
            if known.checksum != record.checksum {
                throw MigrationError(reason: .checksumChanged(record.identifier))
            }
        }
        return applied
    }

    private func appliedMigrations(_ database: Database) throws -> [AppliedMigration] {
        let hasTable = try database.queryFirst(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'") { _ in true } ?? false
        guard hasTable else { return [] }
        return try database.queryAll(
            SharedSQL.appliedMigrations.sqlite
        ) { row in
            AppliedMigration(identifier: row.string(0), checksum: row.string(1),
                             appliedAt: Timestamp.date(epochMilliseconds: row.int64(2)))
        }
    }
}

/// Why a database cannot be used by this program; nothing was written.
package struct MigrationError: PayPanelError, Equatable {
    package enum Reason: Sendable, Equatable {
        case unknownMigration(String)
        case checksumChanged(String)
        case notAPayPanelDatabase(set: String)
        /// A table rebuild left rows pointing at nothing; the migration was rolled back.
        case brokenReferences(String, String)
    }

    package let reason: Reason

    package init(reason: Reason) {
        self.reason = reason
    }

    package var code: String {
        switch reason {
        case .unknownMigration: "database_newer_than_program"
        case .checksumChanged: "migration_changed"
        case .notAPayPanelDatabase: "not_a_paypanel_database"
        case .brokenReferences: "migration_broke_references"
        }
    }

    package var message: String {
        switch reason {
        case .unknownMigration(let identifier):
            "the database was migrated by a newer PayPanel (it has migration \(identifier), which this program does not know): upgrade paypanel, or use another file"
        case .checksumChanged(let identifier):
            "the database applied a different version of migration \(identifier) than this program ships: shipped migrations must never be edited; restore the original file or use a new database"
        case .notAPayPanelDatabase(let set):
            "the file is a SQLite database but not a PayPanel \(set == "main" ? "payments" : set) database: use one, or a new file"
        case .brokenReferences(let identifier, let rows):
            "migration \(identifier) would leave rows that reference nothing (\(rows)), so nothing was changed: the database held such rows before (check it with PRAGMA foreign_key_check) or the migration is wrong"
        }
    }
}

extension Database {
    /// Opens the database at `path` and brings it up to date with `set`: what every command
    /// does before touching data. A file that is foreign, newer or changed is refused before
    /// anything is written to it (the switch to WAL included). A read-only open only verifies.
    package static func openMigrated(
        path: String, set: MigrationSet = .main, clock: any WallClock = SystemClock(),
        options: Database.Options = Database.Options()
    ) throws -> Database {
        var deferred = options
        deferred.writeAheadLog = false
        let database = try Database(path: path, options: deferred)
        let migrator = Migrator(set: set, clock: clock)
        // Refuse foreign, newer or changed databases before anything touches the file.
        try migrator.verify(database)
        if !options.readOnly {
            if options.writeAheadLog { try database.enableWriteAheadLog() }
            try migrator.migrate(database)
        }
        return database
    }
}
