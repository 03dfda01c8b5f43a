import Foundation
import PayPanel
import TestSupport
import Testing

/// The embedded migrations, and the databases the migrator refuses before writing anything.
@Suite struct MigrationTests {
    static let clock = ManualClock(StorageFixtures.start)

    @Test func theMainSetAppliesInOrderAndOnlyOnce() throws {
        #expect(MigrationSet.main.migrations.map(\.identifier).prefix(2) == ["0001_init", "0002_payments"])
        let database = try Database(path: ":memory:")
        let migrator = Migrator(set: .main, clock: Self.clock)
        #expect(try migrator.migrate(database).prefix(2) == ["0001_init", "0002_payments"])
        #expect(try migrator.migrate(database).isEmpty)
        let status = try migrator.status(database)
        #expect(status.pending.isEmpty)
        #expect(status.applied.first { $0.identifier == "0002_payments" }?.checksum == MigrationSet.main.migrations[1].checksum)
        let tables = try database.queryAll("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") { $0.string(0) }
        for table in ["attempts", "events", "idempotency_keys", "inbox", "intents", "outbox", "refunds", "seen_token_transactions", "timers"] {
            #expect(tables.contains(table))
        }
        let strict = try database.queryAll("SELECT name FROM pragma_table_list WHERE schema = 'main' AND strict = 1") { $0.string(0) }
        #expect(Set(strict).isSuperset(of: ["intents", "attempts", "refunds", "events", "outbox", "timers", "idempotency_keys"]))
    }

    @Test func aDatabaseAtMigration0001IsUpgraded() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.sqlite")
        let first = MigrationSet(name: "main", applicationID: MigrationSet.main.applicationID, migrations: Array(MigrationSet.main.migrations.prefix(1)))
        try Migrator(set: first, clock: Self.clock).migrate(try Database(path: path))
        let upgraded = try Database.openMigrated(path: path, clock: Self.clock)
        #expect(try Migrator(set: .main).status(upgraded).pending.isEmpty)
    }

    /// Opens `path` the way every command does and expects `code`, with the file unchanged.
    func expectRefusal(_ path: String, code: String, _ message: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: MigrationError.self) { try Database.openMigrated(path: path, clock: Self.clock) }
        #expect(error.code == code)
        #expect(error.message.contains(message))
        // The library names neither the file nor a CLI option: the CLI adds both (DatabaseFileTests).
        #expect(!error.message.contains(path) && !error.message.contains("--db"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the refused file was modified")
    }

    @Test func aDatabaseMigratedByANewerProgramIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("newer.sqlite")
        do {
            let database = try Database.openMigrated(path: path, clock: Self.clock)
            try database.execute("INSERT INTO schema_migrations (identifier, checksum, applied_at) VALUES ('9999_future', 'x', 0)")
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try expectRefusal(path, code: "database_newer_than_program", "9999_future")
    }

    @Test func aDatabaseWhoseMigrationChangedIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("changed.sqlite")
        do {
            let database = try Database.openMigrated(path: path, clock: Self.clock)
            try database.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE identifier = '0002_payments'")
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try expectRefusal(path, code: "migration_changed", "0002_payments")
    }

    @Test func aForeignDatabaseIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("foreign.sqlite")
        do {
            let database = try Database(path: path)
            try database.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
            try database.execute("PRAGMA journal_mode = DELETE")
        }
        try expectRefusal(path, code: "not_a_paypanel_database", "not a PayPanel payments database")
        let reopened = try Database(path: path, options: .init(readOnly: true))
        #expect(try reopened.queryFirst("PRAGMA journal_mode") { $0.string(0) } == "delete")
    }

    @Test func aProcessorLedgerIsNotMistakenForAPaymentsDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ledger.sqlite")
        do {
            let database = try Database.openMigrated(path: path, set: .processor, clock: Self.clock)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try expectRefusal(path, code: "not_a_paypanel_database", "not a PayPanel payments database")
    }
}
