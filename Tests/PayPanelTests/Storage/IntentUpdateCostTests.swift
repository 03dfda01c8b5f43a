import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// What one intent update costs SQLite must not grow with the tables that refer to intents.
@Suite struct IntentUpdateCostTests {
    /// The virtual-machine steps of the intent UPDATE in one capture of a fresh intent.
    static func stepsOfOneCapture(_ repository: PaymentLedger, random: inout SeededRandomNumberGenerator) throws -> Int {
        let update = try repository.database.statement(PaymentRows.updateIntentSQL)
        let before = update.virtualMachineSteps
        _ = try StorageFixtures.capturedIntent(repository, minorUnits: 500, random: &random)
        return update.virtualMachineSteps - before
    }

    @Test func anUpdateDoesNotScanTheTablesThatReferToIntentsAsTheyGrow() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 11)
        let first = try StorageFixtures.capturedIntent(repository, minorUnits: 500, random: &random)
        let early = try Self.stepsOfOneCapture(repository, random: &random)
        // Rows that point at intents from tables without an index on that column, as a server's
        // grow with every payment: the tokens seen (one per Apple Pay payment) and timers.
        let database = repository.database
        try database.write {
            for number in 0..<3000 {
                try database.execute(
                    "INSERT INTO seen_token_transactions (transaction_id, intent_id, attempt_id, seen_at) VALUES (?, ?, NULL, 0)",
                    [String(format: "%08x", number), first.id])
            }
        }
        for _ in 0..<100 { _ = try StorageFixtures.capturedIntent(repository, minorUnits: 500, random: &random) }
        let late = try Self.stepsOfOneCapture(repository, random: &random)
        // A B-tree a little larger is at most a step deeper per lookup, never a scan of it.
        #expect(late < early + early / 2, "early \(early) steps, late \(late)")
    }
}
