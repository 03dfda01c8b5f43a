import Foundation
@testable import PayPanel
import PayPanelHTTP
@testable import PayPanelServer
import Synchronization
import TestSupport
import Testing

/// Every request with a secret key is checked on the key checks' own thread, and the read of
/// the keys waits until every commit it may have seen is durable. While another connection's
/// commit waits for its flush, that wait suspends the check (`APIKeyStore.awaitingFlush`), so the
/// checks of other requests go on; held on the thread, they queued behind the flush one by one.
@Suite struct APIKeyCheckFlushTests {
    @Test func keyChecksDuringAPendingFlushWaitSuspendedNotHoldingTheThread() async throws {
        let directory = try TemporaryDirectory("paypanel-key-check-flush")
        let path = directory.file("payments.sqlite")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_939_200))
        let stores = SQLiteStoreFactory(path: path, clock: clock)
        let key = try APIKeyRing(store: try stores.openAPIKeyStore()).create(name: "merchant", at: clock.now())
        let authenticator = try APIKeyAuthenticator(stores: stores)
        let walSync = try #require(WriteGate.forFile(at: path)).walSync
        let count = 16
        // Opened before the flushes are held: opening a connection waits for them too.
        nonisolated(unsafe) let other = try stores.openAPIKeyStore()

        // Hold the file's flushes, then commit on another connection (on a thread of its own,
        // which waits for the flush): from now on every read of the file waits for that flush.
        let holding = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            walSync.excludingFlushes {
                holding.store(true, ordering: .releasing)
                release.wait()
            }
        }
        defer { release.signal() }
        let deadline = ContinuousClock.now.advanced(by: QueuedCalls.patience)
        while !holding.load(ordering: .acquiring), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        let notedBefore = walSync.latestNoted
        Thread.detachNewThread { _ = try? APIKeyRing(store: other).create(name: "second", at: clock.now()) }
        while walSync.latestNoted == notedBefore, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(walSync.latestNoted > notedBefore, "the other connection committed while the flushes were held")

        // 16 checks queued together on the checks' thread (so none takes the flush in place for
        // having nothing queued behind it), under an auditor that notes a wait holding it.
        let auditor = BlockingWaitAuditor()
        let checks = Task {
            try await BlockingWait.$auditor.withValue(auditor) {
                try await QueuedCalls.together(on: authenticator, count) { _ in
                    try await authenticator.authenticate("Bearer \(key.key)").id
                }
            }
        }
        // Until all but the last wait for the flush suspended (the last, with nothing queued
        // behind it, takes the flush on its own thread: `WALSync.durable`), or one held the
        // thread while others queued.
        while walSync.suspendedWaiters < count - 1, auditor.heldThreads.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let suspended = walSync.suspendedWaiters
        release.signal()
        let (ids, allQueued) = try await checks.value
        #expect(allQueued, "all \(count) checks waited in the checks' queue together")
        #expect(suspended == count - 1, "\(suspended) of \(count) key checks waited for the flush suspended")
        #expect(auditor.heldThreads.isEmpty, "waits that held the key checks' thread: \(auditor.heldThreads)")
        #expect(ids.allSatisfy { $0 == key.record.id })
    }
}
