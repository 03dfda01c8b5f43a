import Foundation
import MockProcessor
@testable import PayPanel
import TestSupport
import Testing

/// Group commit (`WALSync`): a writer is answered only after a flush that began after its
/// commit; one flush answers every commit made before it began; a failed flush fails them all.
@Suite struct WALSyncTests {
    /// A flush that waits for `release` before it returns `result`, telling `started` first.
    final class HeldFlush: Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let result: DatabaseError?

        init(result: DatabaseError? = nil) { self.result = result }

        func make() -> WALFlush {
            WALFlush(databasePath: "/nonexistent/held") { [self] in
                started.signal()
                release.wait()
                return result
            }
        }
    }

    /// Runs `body` on a thread of its own; the semaphore is signalled when it returned.
    static func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done
    }

    @Test func oneFlushAnswersEveryCommitNotedBeforeItBegan() throws {
        let sync = WALSync(flush: WALFlush(databasePath: "/nonexistent/fast") { nil })
        let tickets = (0..<8).map { _ in sync.noteCommit() }
        let finished = tickets.map { ticket in Self.onThread { try! sync.waitUntilDurable(ticket) } }
        for done in finished { #expect(done.wait(timeout: .now() + 60) == .success) }
        #expect(sync.flushCount == 1)
    }

    /// `rounds` bursts of `writers` commits, each waiting for its flush suspended (off any
    /// `ActorThread`, so none flushes in place), one burst after the other.
    static func burstsOfSuspendedWriters(_ sync: WALSync, rounds: Int, writers: Int = 4) async throws {
        for _ in 0..<rounds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<writers {
                    group.addTask { try await sync.durable(sync.noteCommit()) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Under load, suspended writers come in bursts a flush apart. One flusher thread serves
    /// them all while they come within its linger; a flusher that ended as soon as nobody
    /// waited was started again for every burst (5 threads here, 1.3 per flow in `bench
    /// processor`).
    @Test func oneFlusherThreadServesBurstsThatComeWithinItsLinger() async throws {
        let sync = WALSync(flush: WALFlush(databasePath: "/nonexistent/fast") { nil }, idleLinger: .seconds(30))
        try await Self.burstsOfSuspendedWriters(sync, rounds: 5)
        #expect(sync.flushCount >= 5, "each burst was flushed")
        #expect(sync.flusherThreadCount == 1, "one thread served the five bursts")
    }

    /// The flusher thread does not outlive its linger: after it, it has ended, and the next
    /// writer starts another.
    @Test func theFlusherThreadEndsAfterItsLingerAndTheNextWriterStartsAnother() async throws {
        let sync = WALSync(flush: WALFlush(databasePath: "/nonexistent/fast") { nil }, idleLinger: .milliseconds(20))
        try await Self.burstsOfSuspendedWriters(sync, rounds: 1)
        #expect(sync.flusherThreadCount == 1)
        let deadline = Date(timeIntervalSinceNow: 60)
        while sync.flusherIsRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!sync.flusherIsRunning, "the flusher ended after its linger")
        try await Self.burstsOfSuspendedWriters(sync, rounds: 1)
        #expect(sync.flusherThreadCount == 2, "the next writer started a new flusher")
    }

    @Test func aCommitNotedWhileAFlushRunsWaitsForTheNextOne() throws {
        let held = HeldFlush()
        let sync = WALSync(flush: held.make())
        let first = sync.noteCommit()
        let firstDone = Self.onThread { try! sync.waitUntilDurable(first) }
        #expect(held.started.wait(timeout: .now() + 60) == .success)
        // Committed after the flush began: that flush may not have its frames.
        let second = sync.noteCommit()
        let secondDone = Self.onThread { try! sync.waitUntilDurable(second) }
        held.release.signal()
        #expect(firstDone.wait(timeout: .now() + 60) == .success)
        #expect(held.started.wait(timeout: .now() + 60) == .success, "a second flush starts for the second commit")
        #expect(secondDone.wait(timeout: .now() + 0.2) == .timedOut, "not answered before its own flush ends")
        held.release.signal()
        #expect(secondDone.wait(timeout: .now() + 60) == .success)
        #expect(sync.flushCount == 2)
    }

    @Test func aFailedFlushFailsItsWaitersAndEveryLaterWrite() throws {
        let failure = DatabaseError(.ioErrFsync, sqliteMessage: "fdatasync failed", sql: "COMMIT")
        let held = HeldFlush(result: failure)
        let sync = WALSync(flush: held.make())
        held.release.signal()
        #expect(throws: failure) { try sync.waitUntilDurable(sync.noteCommit()) }
        // Sticky: retrying fdatasync after a failure can report success for pages it dropped.
        #expect(throws: failure) { try sync.waitUntilDurable(sync.noteCommit()) }
        #expect(sync.flushCount == 1)
        #expect(failure.message.hasPrefix("the disk failed a read or write of the database"))
    }

    @Test func aWALFileCommitsWithoutItsOwnFlushAndAWriteWaitsForTheGroupsFlush() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("group.sqlite")
        let database = try Database(path: path)
        #expect(try database.queryFirst("PRAGMA synchronous") { $0.int(0) } == 1, "NORMAL: the COMMIT does not flush")
        try database.execute("CREATE TABLE t (n INTEGER)")
        let gate = try #require(WriteGate.forFile(at: path))
        let before = gate.walSync.flushCount
        try database.write { try database.execute("INSERT INTO t VALUES (1)") }
        #expect(gate.walSync.flushCount == before + 1, "the write returned after a real fdatasync of the WAL")
        // A read with nothing pending waits for nothing.
        #expect(try database.queryFirst("SELECT count(*) FROM t") { $0.int(0) } == 1)
        #expect(gate.walSync.flushCount == before + 1)
    }

    @Test func withoutTheWALEveryCommitFlushesItselfAsBefore() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("journal.sqlite"), options: Database.Options(writeAheadLog: false))
        #expect(try database.queryFirst("PRAGMA synchronous") { $0.int(0) } == 2, "FULL")
        try database.execute("CREATE TABLE t (n INTEGER)")
        let gate = try #require(WriteGate.forFile(at: directory.file("journal.sqlite")))
        try database.write { try database.execute("INSERT INTO t VALUES (1)") }
        #expect(gate.walSync.flushCount == 0)
    }
}

/// Group commit for one service's own payments: the service suspends (not blocks) while its
/// commit waits for the flush, so the payments it serves meanwhile commit into the same flush.
@Suite struct ServiceGroupCommitTests {
    /// A service on a payments file of its own (and the mock's ledger beside it), with the
    /// file's `WALSync` to count its flushes.
    struct FileService: Sendable {
        let directory: TemporaryDirectory
        let service: PaymentService
        let walSync: WALSync

        init(_ name: String) throws {
            directory = try TemporaryDirectory(name)
            let path = directory.file("payments.sqlite")
            let clock = ManualClock(Date(timeIntervalSince1970: 1_795_939_200))
            let mock = try MockProcessor(ledgerPath: directory.file("processor.sqlite"), clock: clock, sleeper: ManualClockSleeper(clock: clock))
            service = PaymentService(store: try SQLitePaymentStore(path: path, clock: clock), processor: mock, clock: clock, randomSeed: 7)
            walSync = try #require(WriteGate.forFile(at: path)).walSync
        }

        /// One 10.00 USD manual-capture intent authorized with a card: its status after.
        func pay() async throws -> PaymentStatus {
            try await authorize(try await createIntent())
        }

        /// A new 10.00 USD manual-capture intent.
        func createIntent() async throws -> PaymentIntent {
            let usd = try Currency(code: "USD")
            return try await service.createIntent(
                try NewPaymentIntent(amount: Amount(minorUnits: 1000, currency: usd), captureMethod: .manual, orderReference: nil))
        }

        /// Authorizes `intent` with a card: its status after.
        func authorize(_ intent: PaymentIntent) async throws -> PaymentStatus {
            let submission = PaymentSubmission(
                intentID: intent.id, method: .card(number: try CardNumber("4242424242424242"), expiry: try CardExpiry("12/30"), holderName: nil),
                source: .card)
            return try await service.authorize(submission).intent.status
        }

        /// The file's group commit, for `QueuedCalls`.
        var flushes: QueuedCalls.Flushes {
            QueuedCalls.Flushes(noted: { [walSync] in walSync.latestNoted }, count: { [walSync] in walSync.flushCount },
                                excluding: { [walSync] work in walSync.excludingFlushes(work) })
        }

        /// Makes `count` calls at once to the held service while the file's flushes are held
        /// back (`QueuedCalls.whileFlushesAreHeld`), and checks that every call committed
        /// meanwhile: the service suspends while a commit waits for its flush, and serves the
        /// next call, instead of blocking its thread. Returns the calls' results.
        func whileFlushesAreHeld<T: Sendable>(_ count: Int, _ call: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
            let run = try await QueuedCalls.whileFlushesAreHeld(on: service, flushes, count, call)
            #expect(run.allQueued, "all \(count) calls waited in the service's queue together")
            #expect(run.committedWhileHeld >= UInt64(count), "\(run.committedWhileHeld) of \(count) calls committed while the first one's flush waited")
            #expect(run.flushedWhileHeld == 0, "no flush ran while they were held back")
            return run.results
        }
    }

    @Test func concurrentPaymentsOnOneServiceShareFlushes() async throws {
        let file = try FileService("paypanel-group-commit")
        let payments = 48
        let before = file.walSync.flushCount
        // The payments must be concurrent, and a flush must last until the others committed:
        // neither holds by itself on a loaded machine or a fast disk (.ci/run counted 99, then
        // 73 flushes, a quiet run 101), so both are arranged (`QueuedCalls`). Each of a
        // payment's two calls is made by all 48 payments at once.
        let intents = try await file.whileFlushesAreHeld(payments) { _ in try await file.createIntent() }
        #expect(file.walSync.flushCount - before == 1, "one flush answered the 48 intents' commits")
        let statuses = try await file.whileFlushesAreHeld(payments) { index in try await file.authorize(intents[index]) }
        #expect(statuses.allSatisfy { $0 == .requiresCapture })
        // Each payment commits at least three times (the intent, the attempt, the answer): one
        // flush each when the service held its thread through every flush. Shared, far fewer.
        let flushes = file.walSync.flushCount - before
        #expect(flushes > 0, "the commits were flushed")
        #expect(flushes < payments * 3 / 2, "\(flushes) flushes for \(payments * 3) or more commits")
    }

    /// The checkout desk runs on its service's thread. Its store calls leave their flush to one
    /// wait that suspends the desk (`CheckoutStore.awaitingFlush`), so checkouts created at once
    /// all commit while the first one's flush waits, and one flush answers them. A desk that
    /// held the thread through each flush (as its writes and reads did) commits one.
    @Test func checkoutsCreatedAtOnceOnTheServicesThreadShareFlushes() async throws {
        let file = try FileService("paypanel-desk-group-commit")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_939_200))
        let desk = CheckoutDesk(service: file.service, clock: clock, randomSeed: 3)
        let count = 16
        let before = file.walSync.flushCount
        let run = try await QueuedCalls.whileFlushesAreHeld(on: desk, file.flushes, count) { _ in
            try await desk.create(json: .object(JSONObject())).checkout.id
        }
        #expect(run.allQueued, "all \(count) creates waited in the desk's queue together")
        #expect(run.committedWhileHeld >= UInt64(count), "\(run.committedWhileHeld) of \(count) creates committed while the first one's flush waited")
        #expect(run.flushedWhileHeld == 0)
        #expect(file.walSync.flushCount - before == 1, "one flush answered the \(count) creates")
        #expect(Set(run.results).count == count)
    }

    /// One payment at a time: nothing else waits for the service's thread when it commits, so
    /// each flush runs there, in place. A wait that left the service's executor (a nonisolated
    /// `async` helper runs on whatever executor the task prefers) would find no `ActorThread`
    /// and start a flusher thread per commit, as `serve` did: 700 threads a second at one client.
    @Test func aServiceWithNothingElseQueuedFlushesInPlaceAndStartsNoThread() async throws {
        let file = try FileService("paypanel-flush-in-place")
        let flushesBefore = file.walSync.flushCount
        let threadsBefore = file.walSync.flusherThreadCount
        for _ in 0..<5 {
            #expect(try await file.pay() == .requiresCapture)
        }
        #expect(file.walSync.flushCount - flushesBefore >= 5, "the commits were flushed")
        #expect(file.walSync.flusherThreadCount == threadsBefore, "every flush ran on the service's own thread")
    }
}
