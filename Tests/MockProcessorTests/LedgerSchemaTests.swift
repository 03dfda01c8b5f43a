import Foundation
import MockProcessor
import PayPanel
import Testing
import TestSupport

@Suite struct LedgerSchemaTests {
    @Test func processorLedgerHasItsOwnMigrations() throws {
        let set = ProcessorLedger.migrations
        #expect(set.name == "processor")
        #expect(set.migrations.map(\.identifier) == ["0001_init", "0002_ledger", "0003_webhooks", "0004_accounts"])
        let database = try Database(path: ":memory:")
        try Migrator(set: set).migrate(database)
        let status = try Migrator(set: set).status(database)
        #expect(status.pending.isEmpty)
    }

    @Test func aLedgerCanWrapAnOpenDatabase() throws {
        let ledger = try ProcessorLedger(database: try Database(path: ":memory:"))
        #expect(ledger.path == ":memory:")
        #expect(try ledger.entries(now: Date(timeIntervalSince1970: 0)).isEmpty)
    }

    @Test func theSchemaRefusesRowsThatBreakItsRules() throws {
        let database = try Database(path: ":memory:")
        _ = try ProcessorLedger(database: database)
        let insert = """
            INSERT INTO operations (reference, operation, refund_reference, amount, currency, status, decline_code,
                                    last4, created_at, updated_at)
            VALUES (?, ?, ?, 100, 'USD', ?, ?, ?, 0, 0)
            """
        // A decline without a code, a refund without its reference, a full card number as last4.
        let bad: [[any DatabaseBindable]] = [
            ["att_1", "authorize", String?.none, "declined", String?.none, "4242"],
            ["att_1", "refund", String?.none, "approved", String?.none, "4242"],
            ["att_1", "authorize", String?.none, "approved", String?.none, "4242424242424242"],
        ]
        for values in bad {
            #expect(throws: DatabaseError.self) { try database.execute(insert, values) }
        }
        try database.execute(insert, ["att_1", "authorize", String?.none, "approved", String?.none, "4242"])
        // The schema itself guarantees one authorization per reference.
        #expect(throws: DatabaseError.self) {
            try database.execute(insert, ["att_1", "authorize", String?.none, "approved", String?.none, "4242"])
        }
    }

    @Test func aPaymentsDatabaseIsNotAcceptedAsALedger() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("paypanel.sqlite")
        _ = try Database.openMigrated(path: path, set: .main)
        #expect(throws: MigrationError.self) { try MockProcessor(ledgerPath: path) }
    }
}
