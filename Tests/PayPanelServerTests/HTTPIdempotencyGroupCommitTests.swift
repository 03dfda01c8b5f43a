import Foundation
@testable import PayPanel
@testable import PayPanelServer
import TestSupport
import Testing

/// The HTTP idempotency keys have a thread of their own, where every keyed request's claim and
/// answer are written. Their flush waits suspend it (`PaymentStore.awaitingFlush`), so keys
/// claimed at once all commit while the first one's flush waits, and one flush answers them.
/// Holding the thread through each flush, they were written one flush at a time.
@Suite struct HTTPIdempotencyGroupCommitTests {
    @Test func keysClaimedAtOnceShareOneFlush() async throws {
        let directory = try TemporaryDirectory("paypanel-key-group-commit")
        let path = directory.file("payments.sqlite")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_939_200))
        let keys = try HTTPIdempotency(store: try SQLitePaymentStore(path: path, clock: clock), clock: clock)
        let flushes = try #require(QueuedCalls.Flushes(ofFileAt: path))
        let count = 16
        let before = flushes.flushCount
        let run = try await QueuedCalls.whileFlushesAreHeld(on: keys, flushes, count) { index in
            let reservation = try await keys.reserve(
                key: "key-\(index)", scope: "http POST /v1/checkouts -", parameters: .object(JSONObject()), lease: 60)
            if case .claimed = reservation { return true }
            return false
        }
        #expect(run.allQueued, "all \(count) claims waited in the keys' queue together")
        #expect(run.committedWhileHeld >= UInt64(count), "\(run.committedWhileHeld) of \(count) claims committed while the first one's flush waited")
        #expect(run.flushedWhileHeld == 0)
        #expect(flushes.flushCount - before == 1, "one flush answered the \(count) claims")
        #expect(run.results.allSatisfy { $0 }, "every key was claimed")
    }
}
