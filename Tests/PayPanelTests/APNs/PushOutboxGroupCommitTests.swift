import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The push outbox has a thread of its own, where every checkout created for a device queues its
/// push. Its flush waits suspend it (`DeviceStore.awaitingFlush`), so pushes queued at once all
/// commit while the first one's flush waits, and one flush answers them. Holding the thread
/// through each flush, they were written one flush at a time.
@Suite struct PushOutboxGroupCommitTests {
    @Test func pushesQueuedAtOnceShareOneFlush() async throws {
        let directory = try TemporaryDirectory("paypanel-push-group-commit")
        let path = directory.file("payments.sqlite")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_939_200))
        // No APNs provider: each push is written as skipped, one write and no send.
        let outbox = PushOutbox(store: try SQLiteStoreFactory(path: path, clock: clock).openDeviceStore(), provider: nil, clock: clock, randomSeed: 7)
        let device = try await outbox.register(token: String(repeating: "ab", count: 32), topic: "com.example.shop", environment: .development)
        let flushes = try #require(QueuedCalls.Flushes(ofFileAt: path))
        let count = 16
        let before = flushes.flushCount
        let run = try await QueuedCalls.whileFlushesAreHeld(on: outbox, flushes, count) { index in
            try await outbox.push(APNsFixtures.payload, to: device.id, checkoutID: nil, collapseID: "push-\(index)", expiresAt: nil).status
        }
        #expect(run.allQueued, "all \(count) pushes waited in the outbox's queue together")
        #expect(run.committedWhileHeld >= UInt64(count), "\(run.committedWhileHeld) of \(count) pushes committed while the first one's flush waited")
        #expect(run.flushedWhileHeld == 0)
        #expect(flushes.flushCount - before == 1, "one flush answered the \(count) pushes")
        #expect(run.results.allSatisfy { $0 == .skipped }, "\(run.results)")
    }
}
