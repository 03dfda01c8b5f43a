import Foundation
import PayPanel
import TestSupport
import Testing

@Suite struct PaymentRepositoryTests {
    @Test func createWritesTheIntentItsFirstEventTimerAndOutboxMessage() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 1)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let database = repository.database
        #expect(try repository.intent(intent.id) == intent)
        #expect(try StorageFixtures.count(database, "events", where: "intent_id = ? AND version = 1 AND type = 'intent_created'", [intent.id]) == 1)
        #expect(try StorageFixtures.count(database, "outbox", where: "topic = 'payment_intent.created'") == 1)
        let timers = try repository.dueTimers(at: StorageFixtures.start.addingTimeInterval(24 * 3600))
        #expect(timers.map(\.kind) == [.abandonment])
    }

    /// Every transition of a long flow is stored so that loading it gives back exactly the
    /// machine the transition produced, with one event per version.
    @Test func everyTransitionIsReadBackExactly() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 2)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let first = PaymentIDs.make(.attempt, using: &random)
        let second = PaymentIDs.make(.attempt, using: &random)
        let amount = intent.amount
        let approval = PaymentFixture.approval(amount)
        let events: [(PaymentEvent, TimeInterval)] = [
            (.attemptOpened(PaymentFixture.opening(first, sheet: true)), 1),
            (.processorAnswered(.authorize(attemptID: first), .unknown(reason: "timeout")), 10),
            (.timerFired(.sheetDeadline, reference: first), 26),
            (.reconciliationFound(.authorize(attemptID: first), approval), 40),
            (.processorAnswered(.void(attemptID: first), approval), 41),
            (.attemptOpened(PaymentFixture.opening(second)), 50),
            (.processorAnswered(.authorize(attemptID: second), .challengeRequired), 51),
            (.challengePassed(attemptID: second), 60),
            (.processorAnswered(.completeChallenge(attemptID: second), approval), 61),
            (.captureRequested(amount: 800), 70),
            (.processorAnswered(.capture(attemptID: second), .approved(ProcessorApproval(amount: Amount(minorUnits: 800, currency: amount.currency), processorID: "cap_1"))), 71),
            (.refundRequested(refundID: "re_one", amount: 300, reason: .requestedByCustomer), 80),
            (.processorAnswered(.refund(refundID: "re_one"), .pending), 81),
            (.refundRequested(refundID: "re_two", amount: 500, reason: .duplicate), 82),
            (.processorAnswered(.refund(refundID: "re_two"), .declined(.refundFailed)), 83),
            (.reconciliationFound(.refund(refundID: "re_one"), .approved(ProcessorApproval(amount: Amount(minorUnits: 300, currency: amount.currency), processorID: "rf_1"))), 90),
        ]
        for (event, offset) in events {
            let transition = try repository.apply(event, to: intent.id, expectedVersion: nil, at: StorageFixtures.start.addingTimeInterval(offset))
            let loaded = try #require(try repository.loadMachine(intent.id))
            #expect(loaded == transition.machine, "after \(event.name)")
        }
        let details = try #require(try repository.details(intent.id))
        #expect(details.intent.status == .succeeded)
        #expect(details.intent.amountCaptured == 800 && details.intent.amountRefunded == 300)
        #expect(details.events.map(\.version) == Array(1...Int64(events.count + 1)))
        #expect(details.attempts.map(\.status) == [.voided, .captured])
        #expect(details.refunds.map(\.status) == [.succeeded, .failed])
        #expect(try StorageFixtures.count(repository.database, "timers", where: "intent_id = ?", [intent.id]) == 0)
    }

    @Test func timesAreKeptToTheMillisecondAndReadBackEqual() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 9)
        let odd = StorageFixtures.start.addingTimeInterval(0.123_456_7)
        let intent = try StorageFixtures.createIntent(repository, random: &random, at: odd)
        #expect(try repository.intent(intent.id) == intent)
        let transition = try repository.apply(.attemptOpened(PaymentFixture.opening("att_ms")), to: intent.id, expectedVersion: 1, at: odd.addingTimeInterval(1.000_9))
        #expect(try repository.loadMachine(intent.id) == transition.machine)
        #expect(Timestamp.format(transition.intent.updatedAt) == "2026-11-18T11:06:41.124Z")
    }

    @Test func aStaleVersionChangesNothing() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 3)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try repository.apply(.attemptOpened(PaymentFixture.opening("att_a")), to: intent.id, expectedVersion: 1, at: StorageFixtures.start)
        let eventsBefore = try StorageFixtures.count(repository.database, "events")
        let error = try #require(throws: PaymentStoreError.self) {
            try repository.apply(.cancelRequested(reason: .duplicate), to: intent.id, expectedVersion: 1, at: StorageFixtures.start)
        }
        #expect(error.code == "version_conflict")
        #expect(error.message.contains("expected version 1, it is at 2"))
        #expect(try repository.intent(intent.id)?.version == 2)
        #expect(try StorageFixtures.count(repository.database, "events") == eventsBefore)
    }

    @Test func aRejectedEventWritesNothing() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 4)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let database = repository.database
        let counts = try ["events", "outbox", "timers", "attempts"].map { try StorageFixtures.count(database, $0) }
        #expect(throws: PaymentRejection.self) {
            try repository.apply(.captureRequested(amount: nil), to: intent.id, expectedVersion: 1, at: StorageFixtures.start)
        }
        #expect(try ["events", "outbox", "timers", "attempts"].map { try StorageFixtures.count(database, $0) } == counts)
        #expect(try repository.intent(intent.id) == intent)
        #expect(throws: PaymentStoreError.self) {
            try repository.apply(.cancelRequested(reason: .duplicate), to: "pi_missing", expectedVersion: nil, at: StorageFixtures.start)
        }
    }

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
        "UPDATE intents SET order_reference = '4242424242424242', version = version + 1",
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
