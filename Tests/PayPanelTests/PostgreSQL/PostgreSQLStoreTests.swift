#if PostgreSQL
import Foundation
import PayPanel
import PayPanelPostgres
import TestSupport
import Testing

/// What only the PostgreSQL store has to prove (the conformance suite covers the rest):
/// retries of whole transactions, lost COMMITs read back, advisory-locked migrations, SKIP
/// LOCKED claims across two stores, and errors that name the statement but never a value.
/// Every test works in a schema of its own, dropped at the end.
@Suite struct PostgreSQLStoreTests {
    static let start = StorageFixtures.start

    /// A fresh migrated schema, its URL, and a way to open more stores on it.
    struct Subject {
        let url: String
        let schema: String
        let cleanup: PostgreSQLTestSchema

        init(_ prefix: String = "pgtest") throws {
            url = try PostgreSQLTestServer.url()
            schema = PostgreSQLTestServer.freshSchemaName(prefix)
            cleanup = PostgreSQLTestSchema(url: url, schema: schema)
        }

        func open(migrate: Bool = true, isolation: PostgreSQLPaymentStore.Isolation = .readCommitted) throws -> PostgreSQLPaymentStore {
            try PostgreSQLPaymentStore(url: url, schema: schema, migrate: migrate, clock: ManualClock(start), isolation: isolation)
        }
    }

    // MARK: - Retries

    @Test func aSerializationFailureRunsTheWholeTransactionAgain() throws {
        let subject = try Subject()
        let store = try subject.open(isolation: .serializable)
        let other = try subject.open(migrate: false)
        var random = SeededRandomNumberGenerator(seed: 1)
        let intent = try StorageFixtures.createIntent(PaymentLedger(store: store), random: &random)
        let attemptID = PaymentIDs.make(.attempt, using: &random)
        var runs = 0
        let seen = try store.write { transaction -> PaymentIntent? in
            runs += 1
            _ = try transaction.eventCount()  // the snapshot is taken here
            if runs == 1 {
                // Another server moves the intent on after this transaction's snapshot.
                try PaymentLedger(store: other).apply(
                    .attemptOpened(PaymentFixture.opening(attemptID, amount: intent.amount)), to: intent.id, expectedVersion: 1,
                    at: Self.start.addingTimeInterval(1))
            }
            return try transaction.intent(intent.id)  // FOR UPDATE on a row changed since: 40001
        }
        #expect(runs == 2)
        #expect(store.lastAttempts == 2)
        #expect(seen?.version == 2, "the second run sees the other server's change")
    }

    @Test func aConflictThatNeverClearsEndsWithARetryableErrorAfterTheBoundedAttempts() throws {
        let subject = try Subject()
        let store = try subject.open(isolation: .serializable)
        let other = try subject.open(migrate: false)
        var random = SeededRandomNumberGenerator(seed: 2)
        let intent = try StorageFixtures.capturedIntent(PaymentLedger(store: store), minorUnits: 1000, random: &random)
        let otherLedger = PaymentLedger(store: other)
        var runs = 0
        let error = #expect(throws: PostgreSQLError.self) {
            try store.write { transaction in
                runs += 1
                _ = try transaction.eventCount()
                // Another server moves the intent on during every run: each run loses.
                try otherLedger.apply(
                    .refundRequested(refundID: "re_race\(runs)", amount: 10, reason: nil), to: intent.id, expectedVersion: nil,
                    at: Self.start.addingTimeInterval(100))
                _ = try transaction.intent(intent.id)
            }
        }
        #expect(error?.isRetryableConflict == true)
        #expect(runs == store.maximumAttempts)
    }

    // MARK: - A lost COMMIT

    @Test func aCommitWhoseAnswerIsLostIsReadBackAsCommittedAndNotRunAgain() throws {
        let subject = try Subject()
        let store = try subject.open()
        let ledger = PaymentLedger(store: store)
        var random = SeededRandomNumberGenerator(seed: 3)
        let request = try NewPaymentIntent(amount: PaymentFixture.amount)
        let id = PaymentIDs.make(.intent, using: &random)
        store.commitFault = .afterCommitBeforeAnswer
        var runs = 0
        try store.write { transaction in
            runs += 1
            try ledger.create(request, id: id, at: Self.start, in: transaction)
        }
        #expect(runs == 1, "a committed transaction is never run again")
        #expect(try store.read { try $0.allIntentIDs() } == [id])
    }

    @Test func aConnectionLostBeforeCommitIsReadBackAsAbortedAndRunAgain() throws {
        let subject = try Subject()
        let store = try subject.open()
        let ledger = PaymentLedger(store: store)
        var random = SeededRandomNumberGenerator(seed: 4)
        let request = try NewPaymentIntent(amount: PaymentFixture.amount)
        let id = PaymentIDs.make(.intent, using: &random)
        store.commitFault = .beforeCommit
        var runs = 0
        try store.write { transaction in
            runs += 1
            try ledger.create(request, id: id, at: Self.start, in: transaction)
        }
        #expect(runs == 2, "known not to have committed: run once more")
        #expect(try store.read { try $0.allIntentIDs() } == [id])
        #expect(try store.read { try $0.events(ofIntent: id) }.count == 1)
    }

    /// The server stopped under an open transaction: its COMMIT meets a closed connection and
    /// no new connection can ask what became of it. The write says so at once
    /// (`commitOutcomeUnknown`, a 503 to a client) instead of waiting for the server to come
    /// back while every payment behind it waits too. Here the server is started again 2 s later:
    /// a store that waited would read the transaction back as aborted, run it again and succeed.
    @Test func aCommitMeetingAStoppedServerIsUnknownAtOnceNotWaitedOut() throws {
        if let reason = PrivatePostgreSQL.skipReason() {
            try Test.cancel("\(reason): a commit meeting a stopped server is not tested")
        }
        let database = try PrivatePostgreSQL()
        let store = try PostgreSQLPaymentStore(url: database.url, clock: ManualClock(Self.start))
        let ledger = PaymentLedger(store: store)
        var random = SeededRandomNumberGenerator(seed: 5)
        let request = try NewPaymentIntent(amount: PaymentFixture.amount)
        let id = PaymentIDs.make(.intent, using: &random)
        let restarted = Recorder<String>()
        var runs = 0
        let error = #expect(throws: PostgreSQLError.self) {
            try store.write { transaction in
                runs += 1
                try ledger.create(request, id: id, at: Self.start, in: transaction)
                guard runs == 1 else { return }
                try database.stop()
                Thread.detachNewThread {
                    // The server stays down 2 s, long enough that a store that waited for it would
                    // come back with the outcome instead of failing at once.
                    Thread.sleep(forTimeInterval: 2)  // sleep is the test: the outage's length
                    restarted.record((try? database.start()).map { "started" } ?? "failed to start")
                }
            }
        }
        #expect(error?.kind == .commitOutcomeUnknown, "\(String(describing: error))")
        #expect(runs == 1, "an outcome nobody could read is never run again")
        // The restart's own report; bounded, so a start that hangs fails here instead of hanging.
        let deadline = Date().addingTimeInterval(60)
        while restarted.all.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        try #require(restarted.all == ["started"], "PostgreSQL was not started again within 60 s: \(restarted.all)")
        // Back up: the open transaction was rolled back by the stop, and the store works again.
        #expect(try store.read { try $0.allIntentIDs() } == [])
    }

    // MARK: - Migrations

    @Test func storesMigratingOneNewSchemaAtOnceTakeTurns() throws {
        let subject = try Subject("pgmigrate")
        let url = subject.url
        let schema = subject.schema
        let outcomes = Concurrently.run(4) { _ -> String in
            do {
                _ = try PostgreSQLPaymentStore(url: url, schema: schema, migrate: true)
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcomes == ["ok", "ok", "ok", "ok"])
        _ = try subject.open(migrate: false)
    }

    @Test func aSchemaMigratedByANewerProgramIsRefused() throws {
        let subject = try Subject()
        _ = try subject.open()
        try PostgreSQLSchemaMaintenance.recordAppliedMigration(
            url: subject.url, schema: subject.schema, identifier: "9999_future", checksum: String(repeating: "0", count: 64))
        #expect(throws: MigrationError(reason: .unknownMigration("9999_future"))) { try subject.open() }
    }

    @Test func aChangedMigrationIsRefused() throws {
        let subject = try Subject()
        _ = try subject.open()
        try PostgreSQLSchemaMaintenance.changeRecordedChecksum(
            url: subject.url, schema: subject.schema, identifier: "0002_payments", to: String(repeating: "1", count: 64))
        #expect(throws: MigrationError(reason: .checksumChanged("0002_payments"))) { try subject.open(migrate: false) }
    }

    // MARK: - SKIP LOCKED claims

    @Test func anOutboxMessageClaimedByOneStoreIsSkippedByAnother() throws {
        let subject = try Subject()
        let first = try subject.open()
        let second = try subject.open(migrate: false)
        var random = SeededRandomNumberGenerator(seed: 5)
        for _ in 0..<3 { _ = try StorageFixtures.createIntent(PaymentLedger(store: first), random: &random) }
        let (claimed, seenByOther) = try first.write { transaction in
            let claimed = try transaction.undeliveredOutbox(limit: 1)
            let seenByOther = try second.write { try $0.undeliveredOutbox(limit: 100) }
            return (claimed, seenByOther)
        }
        #expect(claimed.count == 1)
        #expect(seenByOther.count == 2)
        #expect(!seenByOther.contains { $0.id == claimed[0].id })
        #expect(try second.write { try $0.undeliveredOutbox(limit: 100) }.count == 3, "released at commit")
    }

    @Test func aTimerBeingFiredByOneStoreIsNotDueForAnother() throws {
        let subject = try Subject()
        let first = try subject.open()
        let second = try subject.open(migrate: false)
        var random = SeededRandomNumberGenerator(seed: 6)
        let intent = try StorageFixtures.createIntent(PaymentLedger(store: first), random: &random)
        let later = Self.start.addingTimeInterval(30 * 24 * 3600)
        let timer = try #require(try PaymentLedger(store: first).dueTimers(at: later, intentID: intent.id).first)
        let (mine, theirs) = try first.write { transaction in
            (try transaction.isStillDue(timer, at: later), try second.write { try $0.isStillDue(timer, at: later) })
        }
        #expect(mine && !theirs)
    }

    @Test func twoStoresFiringTheSameDueTimersApplyEachOnce() throws {
        let subject = try Subject()
        let store = try subject.open()
        var random = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<6 { _ = try StorageFixtures.createIntent(PaymentLedger(store: store), random: &random) }
        let later = Self.start.addingTimeInterval(30 * 24 * 3600)
        let timers = try PaymentLedger(store: store).dueTimers(at: later)
        #expect(timers.count == 6)
        let url = subject.url
        let schema = subject.schema
        let applied = Concurrently.run(2) { _ -> Int in
            guard let instance = try? PostgreSQLPaymentStore(url: url, schema: schema, migrate: false) else { return -100 }
            let ledger = PaymentLedger(store: instance)
            var count = 0
            for timer in timers {
                if case .applied = try? ledger.fireTimer(timer, at: later) { count += 1 }
            }
            return count
        }
        // A timer skipped because the other store held it stays due only if nobody fired it.
        let remaining = try PaymentLedger(store: store).dueTimers(at: later).filter { $0.kind == .abandonment }
        #expect(applied.reduce(0, +) + remaining.count == 6)
        let canceled = try store.read { transaction in try transaction.allIntentIDs().filter { try transaction.intent($0)?.status == .canceled } }
        #expect(canceled.count == applied.reduce(0, +), "each applied firing canceled one intent, none twice")
    }

    // MARK: - Errors

    @Test func errorsNameTheStatementAndSQLStateButNeverTheValue() throws {
        let subject = try Subject()
        let store = try subject.open()
        try store.write { try $0.insertTokenTransaction("abc123def456", intentID: nil, attemptID: nil, at: Self.start) }
        do {
            try store.write { try $0.insertTokenTransaction("abc123def456", intentID: nil, attemptID: nil, at: Self.start) }
            Issue.record("a duplicate was stored")
        } catch let error as PostgreSQLError {
            #expect(error.sqlState == "23505")
            #expect(error.statement == "tokens.insert")
            #expect(error.message.contains("tokens.insert") && error.message.contains("23505"))
            #expect(!error.message.contains("abc123def456"))
        }
    }

    @Test func aTextValueWithANULCharacterIsRefusedNotCutShort() throws {
        let subject = try Subject()
        let store = try subject.open()
        let error = #expect(throws: PostgreSQLError.self) { try store.read { try $0.tokenTransaction("ab\u{0}cd") } }
        #expect(error?.kind == .unsendableValue)
    }

    /// A key holding a card number is never refused, and never stored as it is.
    @Test func aKeyHoldingACardNumberIsStoredAsItsDigest() throws {
        let subject = try Subject()
        let store = IdempotencyStore(store: try subject.open())
        for key in ["4242424242424242", "order 4242 4242 4242 4242", "uuid-3f2a9c1e-8b7d-4e2f-a1b2-123456789012"] {
            _ = try store.perform(key: key, scope: "s", parameters: .object(JSONObject()), at: Self.start) { _ in .succeeded(nil) }
        }
        let stored = try PostgreSQLSchemaMaintenance.storedIdempotencyKeys(url: subject.url, schema: subject.schema)
        #expect(stored.contains("uuid-3f2a9c1e-8b7d-4e2f-a1b2-123456789012"), "a key without a card number is kept as it is")
        #expect(stored.filter { $0.hasPrefix("sha256:") }.count == 2, "\(stored)")
        #expect(!stored.contains { $0.contains("4242") })
    }

    @Test func theMigrationsOfBothDialectsHaveTheSameNames() {
        let postgres = MigrationSet.postgreSQL.migrations.map(\.identifier)
        let sqlite = MigrationSet.main.migrations.map(\.identifier)
        // Every SQLite migration has its dialect file, under the same name.
        #expect(postgres.count >= 7)
        #expect(sqlite == postgres)
    }
}

#endif
