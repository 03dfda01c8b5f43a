import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The crash soak's replay check: a history replays to exactly the stored rows, and any row
/// changed behind the state machine's back is found.
@Suite struct HistoryReplayTests {
    /// A captured intent with a partial refund that succeeded, all through the repository.
    static func refundedIntent(_ repository: PaymentLedger) throws -> PaymentIntent {
        var random = SeededRandomNumberGenerator(seed: 3)
        let intent = try StorageFixtures.capturedIntent(repository, minorUnits: 1000, random: &random)
        let time = StorageFixtures.start.addingTimeInterval(60)
        try repository.apply(.refundRequested(refundID: "re_replay1", amount: 400, reason: .requestedByCustomer), to: intent.id, expectedVersion: nil, at: time)
        try repository.apply(
            .processorAnswered(.refund(refundID: "re_replay1"), PaymentFixture.approval(Amount(minorUnits: 400, currency: PaymentFixture.usd))),
            to: intent.id, expectedVersion: nil, at: time.addingTimeInterval(1))
        return try #require(try repository.intent(intent.id))
    }

    @Test func aHistoryReplaysToTheStoredRows() throws {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try Self.refundedIntent(repository)
        #expect(intent.amountRefunded == 400)
        #expect(try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id) == [])
    }

    @Test func unknownOutcomesLookupsAndTimersReplayToo() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 4)
        let intent = try StorageFixtures.createIntent(repository, captureMethod: .automatic, random: &random)
        let attempt = "att_replay2"
        let start = StorageFixtures.start
        try repository.apply(.attemptOpened(PaymentFixture.opening(attempt, sheet: true)), to: intent.id, expectedVersion: 1, at: start)
        try repository.apply(.processorAnswered(.authorize(attemptID: attempt), .unknown(reason: "timeout")), to: intent.id, expectedVersion: nil, at: start.addingTimeInterval(25))
        try repository.apply(.timerFired(.sheetDeadline, reference: attempt), to: intent.id, expectedVersion: nil, at: start.addingTimeInterval(26))
        try repository.apply(.reconciliationNotFound(.authorize(attemptID: attempt)), to: intent.id, expectedVersion: nil, at: start.addingTimeInterval(60))
        try repository.apply(.reconciliationFound(.authorize(attemptID: attempt), PaymentFixture.approval(PaymentFixture.amount)), to: intent.id, expectedVersion: nil, at: start.addingTimeInterval(90))
        let replay = HistoryReplay(ledger: repository)
        #expect(try replay.discrepancies(intentID: intent.id) == [])
        #expect(try replay.discrepanciesOfAllIntents().intents == 1)
    }

    @Test func aChangedTimerIsFound() throws {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try Self.refundedIntent(repository)
        try repository.database.execute("UPDATE timers SET due_at = due_at + 1000 WHERE intent_id = ?", [intent.id])
        try repository.database.execute(
            "INSERT INTO timers (intent_id, kind, reference, due_at, created_at) VALUES (?, 'challenge_expiry', 'att_ghost', 1, 1)", [intent.id])
        let found = try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id)
        #expect(found.contains { $0.contains("timer challenge_expiry att_ghost is stored but no event scheduled it") }, "\(found)")
    }

    @Test func anOutboxMessageWithoutItsEventIsFound() throws {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try Self.refundedIntent(repository)
        try repository.database.execute(
            "INSERT INTO outbox (intent_id, intent_version, topic, payload, created_at) VALUES (?, 99, 'payment_intent.succeeded', '{}', 1)", [intent.id])
        let found = try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id)
        #expect(found.contains { $0.contains("the outbox differs from the replay") && $0.contains("v99") }, "\(found)")
    }

    @Test func anIntentRowChangedWithoutAnEventIsFound() throws {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try Self.refundedIntent(repository)
        // The triggers only insist on the version moving by one: a writer bypassing the machine.
        try repository.database.execute(
            "UPDATE intents SET version = version + 1, amount_refunded = 0, amount_refund_pending = 400 WHERE id = ?", [intent.id])
        let found = try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id)
        #expect(found.contains { $0.contains("the intent row differs from the replay") && $0.contains("amountRefunded: 0 → 400") }, "\(found)")
    }

    @Test func aRewrittenEventIsFound() throws {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try Self.refundedIntent(repository)
        try repository.database.execute("DROP TRIGGER events_are_append_only_update")
        try repository.database.execute(
            "UPDATE events SET data = replace(data, '\"amount\":400', '\"amount\":300') WHERE intent_id = ? AND type = 'refund_requested'", [intent.id])
        let found = try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id)
        #expect(!found.isEmpty)
        #expect(found.contains { $0.contains("refund re_replay1 differs from the replay") || $0.contains("refused on replay") }, "\(found)")
    }

    @Test func anUndecodableEventIsNamed() throws {
        let repository = try StorageFixtures.memoryRepository()
        let intent = try Self.refundedIntent(repository)
        try repository.database.execute("DROP TRIGGER events_are_append_only_update")
        try repository.database.execute("UPDATE events SET data = '{\"call\":{}}' WHERE intent_id = ? AND version = 3", [intent.id])
        let found = try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id)
        #expect(found.contains { $0.contains("event v3") && $0.contains("field call.reference is missing or malformed") }, "\(found)")
    }
}
