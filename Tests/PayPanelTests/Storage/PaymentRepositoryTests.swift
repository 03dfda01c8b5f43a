import Foundation
import PayPanel
import TestSupport
import Testing

/// What only the SQLite store does: its triggers and CHECK constraints repeat the machine's
/// rules, seen by tampering with rows through `ledger.database`. What every store must do is
/// the conformance suite's (`StoreConformance/`), which runs on SQLite too.
@Suite struct PaymentRepositoryTests {
    @Test func theHistoryIsAppendOnlyAndIntentsAreNeverDeleted() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 5)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let database = repository.database
        #expect(throws: DatabaseError.self) { try database.execute("UPDATE events SET type = 'x' WHERE intent_id = ?", [intent.id]) }
        #expect(throws: DatabaseError.self) { try database.execute("DELETE FROM events WHERE intent_id = ?", [intent.id]) }
        #expect(throws: DatabaseError.self) { try database.execute("DELETE FROM intents WHERE id = ?", [intent.id]) }
        #expect(throws: DatabaseError.self) {
            try database.execute(
                "INSERT INTO events (intent_id, version, type, to_status, data, occurred_at) VALUES (?, 1, 'dup', 'canceled', '{}', 0)", [intent.id])
        }
    }

    /// The database repeats the machine's rules, so a bug elsewhere cannot store what the
    /// machine forbids.
    @Test(arguments: [
        "UPDATE intents SET amount_captured = 10, version = version + 1",
        "UPDATE intents SET status = 'succeeded', version = version + 1",
        "UPDATE intents SET status = 'processing', version = version + 1",
        "UPDATE intents SET version = version + 2",
        "UPDATE intents SET amount = 5, version = version + 1",
        "UPDATE intents SET order_reference = '', version = version + 1",
        "UPDATE intents SET metadata = '', version = version + 1",
        "UPDATE intents SET amount_refund_pending = 1, version = version + 1",
    ])
    func theDatabaseRefusesStatesTheMachineForbids(sql: String) throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 6)
        _ = try StorageFixtures.createIntent(repository, random: &random)
        let error = try #require(throws: DatabaseError.self) { try repository.database.execute(sql) }
        #expect(error.isConstraintViolation)
    }

    @Test func finalIntentsAreFrozenByTheDatabaseToo() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 7)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try repository.apply(.cancelRequested(reason: .duplicate), to: intent.id, expectedVersion: 1, at: StorageFixtures.start)
        let error = try #require(throws: DatabaseError.self) {
            try repository.database.execute("UPDATE intents SET updated_at = 0, version = version + 1 WHERE id = ?", [intent.id])
        }
        #expect(error.sqliteMessage.contains("cannot change state"))
    }

    @Test func attemptsCannotHoldMoreThanTheLastFourDigits() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 8)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        for last4 in ["4242424242424242", "42424", "42a2"] {
            #expect(throws: DatabaseError.self) {
                try repository.database.execute(
                    """
                    INSERT INTO attempts (id, intent_id, sequence, status, source, card_last4, eci_present, amount, currency, created_at, updated_at)
                    VALUES ('att_x', ?, 1, 'authorizing', 'card', ?, 0, 1000, 'USD', 0, 0)
                    """, [intent.id, last4])
            }
        }
        #expect(CardSummary(network: .visa, last4: "4242424242424242") == nil)
        let columns = try ["intents", "attempts", "refunds", "events", "outbox", "idempotency_keys", "seen_token_transactions"].flatMap { table in
            try repository.database.queryAll("SELECT name FROM pragma_table_info(?)", [table]) { $0.string(0) }
        }
        #expect(!columns.contains { $0.contains("pan") || $0.contains("cryptogram") || $0.contains("card_number") || $0.contains("dpan") })
    }
}
