import PayPanel
import Testing

@testable import MockProcessor

@Suite struct LedgerSchemaTests {
    @Test func processorLedgerHasItsOwnMigrations() throws {
        let set = ProcessorLedger.migrations
        #expect(set.name == "processor")
        #expect(set.migrations.first?.identifier == "0001_init")
        let database = try Database(path: ":memory:")
        try Migrator(set: set).migrate(database)
        let status = try Migrator(set: set).status(database)
        #expect(status.pending.isEmpty)
    }
}
