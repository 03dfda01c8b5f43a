import Foundation
@testable import PayPanel
@testable import PayPanelServer
import TestSupport
import Testing

/// The webhook desk has a thread of its own, where the routes' endpoint and event calls run.
/// Its flush waits suspend it (`WebhookDesk.stored`, `WebhookStore.awaitingFlush`), so endpoints
/// created at once all commit while the first one's flush waits, and one flush answers them.
/// Holding the thread through each flush, they were written one flush at a time.
@Suite struct WebhookDeskGroupCommitTests {
    @Test func endpointsCreatedAtOnceShareOneFlush() async throws {
        let directory = try TemporaryDirectory("paypanel-webhook-desk-group-commit")
        let path = directory.file("payments.sqlite")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_939_200))
        let stores = SQLiteStoreFactory(path: path, clock: clock)
        let box = try WebhookSecretBox(masterKey: Array(repeating: 7, count: 32))
        let desk = WebhookDesk(store: try stores.openWebhookStore(), box: box, relay: nil, clock: clock)
        let flushes = try #require(QueuedCalls.Flushes(ofFileAt: path))
        let count = 16
        let before = flushes.flushCount
        let run = try await QueuedCalls.whileFlushesAreHeld(on: desk, flushes, count) { index in
            try await desk.create(url: "https://example.com/hooks/\(index)", eventTypes: ["payment_intent.succeeded"]).record.id
        }
        #expect(run.allQueued, "all \(count) creates waited in the desk's queue together")
        #expect(run.heldThreads.isEmpty, "waits that held the desk's thread: \(run.heldThreads.prefix(3))")
        #expect(run.committedWhileHeld >= UInt64(count), "\(run.committedWhileHeld) of \(count) creates committed while the first one's flush waited")
        #expect(run.flushedWhileHeld == 0)
        #expect(flushes.flushCount - before == 1, "one flush answered the \(count) creates")
        #expect(Set(run.results).count == count, "every create made its own endpoint")
        #expect(try await desk.list().count == count)
    }
}
