#if PostgreSQL
import Foundation
import MockProcessor
import PayPanel
import PayPanelPostgres
import PayPanelReliability
import TestSupport
import Testing

/// Round trips to PostgreSQL, counted by the store (`PostgreSQLRoundTrips`), and what
/// statements queued for a later pipeline still guarantee: a check that fails on a queued
/// statement's answer, or a constraint it breaks, throws as before and leaves nothing written.
@Suite struct PostgreSQLRoundTripTests {
    static let start = StorageFixtures.start

    /// One payment as `bench lifecycle --db` makes it (create → authorize → capture on the
    /// zero-latency mock processor), on a fresh pool: at most 22 waits for the server, counted,
    /// never timed. Before statements were pipelined it took 44.
    @Test func onePaymentLifecycleTakesAtMost22RoundTrips() async throws {
        let url = try PostgreSQLTestServer.url()
        let schema = PostgreSQLTestServer.freshSchemaName("pgrt")
        let cleanup = PostgreSQLTestSchema(url: url, schema: schema)
        let factory = try PostgreSQLStoreFactory(url: url, schema: schema)
        let directory = try TemporaryDirectory("paypanel-pgrt-test")
        let benchmark = LifecycleBenchmark(
            count: 1, directory: directory.path, clock: ManualClock(Self.start), rounds: 1,
            makeStore: { try factory.openPostgreSQLStore() }, roundTrips: { factory.roundTrips }
        ) { path, clock in
            try MockProcessor(ledgerPath: path, clock: clock)
        }
        let result = try await benchmark.run()
        let roundTrips = try #require(result.roundTripsPerPayment)
        #expect(roundTrips > 0)
        #expect(roundTrips <= 22, "round trips per payment: \(roundTrips)")
        let store = try factory.openPostgreSQLStore()
        let intents = try store.read { try $0.intents(status: nil, metadata: [:], page: .first, limit: 10) }
        #expect(intents.map(\.status) == [.succeeded], "the payment went through")
        _ = cleanup
    }

    /// The versioned update of an intent this transaction holds is queued; when its row count
    /// comes back wrong (here a statement queued before it moved the row on, which only a bug
    /// could do), the write throws the `versionConflict` a missed update on a held row has always
    /// ended in, and nothing of the transaction is stored: not the update, not what followed it.
    @Test func aQueuedVersionCheckThatMissesThrowsTheConflictAndWritesNothing() throws {
        let subject = try PostgreSQLStoreTests.Subject("pgrt")
        let store = try subject.open()
        let ledger = PaymentLedger(store: store)
        var random = SeededRandomNumberGenerator(seed: 31)
        let intent = try StorageFixtures.createIntent(ledger, random: &random)
        let attemptID = PaymentIDs.make(.attempt, using: &random)
        let eventsBefore = try store.read { try $0.events(ofIntent: intent.id) }
        var runs = 0
        let error = #expect(throws: PaymentStoreError.self) {
            try store.write { transaction in
                runs += 1
                var machine = try ledger.requireMachine(intent.id, in: transaction)  // its row held at version 1
                try store.queueBehindTheTransactionsBack(
                    "test.bump_version", "UPDATE intents SET version = version + 1 WHERE id = $1", [intent.id])
                let now = Self.start.addingTimeInterval(1)
                _ = try machine.apply(.attemptOpened(PaymentFixture.opening(attemptID, amount: intent.amount)), at: now)
                // Queued: the answer is true, the check waits for the row count.
                #expect(try transaction.updateIntent(machine.intent, previousVersion: 1))
                for attempt in machine.attempts { try transaction.saveAttempt(attempt) }
                try transaction.appendEvent(StoredPaymentEvent(
                    intentID: intent.id, version: 2, type: "attempt_opened", fromStatus: intent.status, toStatus: machine.intent.status,
                    data: "{}", occurredAt: now))
            }
        }
        #expect(error?.code == "version_conflict")
        if case .versionConflict(let id, let expected, _)? = error?.reason {
            #expect(id == intent.id && expected == 1)
        } else {
            Issue.record("not a version conflict: \(String(describing: error))")
        }
        #expect(runs == 1, "a failed check is not a conflict to retry")
        let stored = try #require(try store.read { try $0.intent(intent.id) })
        #expect(stored.version == 1, "neither the bump nor the update is stored")
        #expect(try store.read { try $0.attempts(ofIntent: intent.id) }.isEmpty)
        #expect(try store.read { try $0.events(ofIntent: intent.id) } == eventsBefore)
    }

    /// A constraint broken by a queued statement surfaces as the statement's own error (not as
    /// the skipped statements after it), and the transaction rolls back.
    @Test func aConstraintErrorInAQueuedStatementSurfacesAndRollsBack() throws {
        let subject = try PostgreSQLStoreTests.Subject("pgrt")
        let store = try subject.open()
        let ledger = PaymentLedger(store: store)
        var random = SeededRandomNumberGenerator(seed: 32)
        let request = try NewPaymentIntent(amount: PaymentFixture.amount)
        let id = PaymentIDs.make(.intent, using: &random)
        var runs = 0
        let error = #expect(throws: PostgreSQLError.self) {
            try store.write { transaction in
                runs += 1
                try ledger.create(request, id: id, at: Self.start, in: transaction)  // the intent and its version 1 event
                // A second event of version 1 breaks the history's unique key; the outbox row
                // queued after it is skipped by the server.
                try transaction.appendEvent(StoredPaymentEvent(
                    intentID: id, version: 1, type: "intent_created", fromStatus: nil, toStatus: .requiresPaymentMethod, data: "{}",
                    occurredAt: Self.start))
                try transaction.appendOutbox(NewOutboxMessage(
                    intentID: id, intentVersion: 1, topic: "payment_intent.created", refundID: nil, payload: "{}", createdAt: Self.start))
            }
        }
        #expect(error?.sqlState == "23505")
        #expect(error?.statement == "events.insert")
        #expect(runs == 1)
        #expect(try store.read { try $0.allIntentIDs() }.isEmpty, "the intent inserted before it is rolled back too")
        #expect(try store.read { try $0.eventCount() } == 0)
    }
}
#endif
