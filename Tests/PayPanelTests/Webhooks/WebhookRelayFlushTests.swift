import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The relay waits for its flushes suspended, one per step of a pass (`WebhookStore.awaitingFlush`):
/// the events published, the deliveries claimed and their requests prepared share one flush,
/// and a batch's recorded attempts share the next. It once waited for a flush after every
/// commit, holding its thread: a pass of eight deliveries took ten.
@Suite struct WebhookRelayFlushTests {
    @Test func aPassOfEightDeliveriesTakesTwoFlushes() async throws {
        let harness = try RelayHarness(kind: .sqliteFile)
        let directory = try #require(harness.database.directory)
        let walSync = try #require(WriteGate.forFile(at: directory.file("payments.sqlite"))).walSync
        for index in 0..<WebhookRelay.concurrency {
            _ = try harness.endpoints.create(url: "https://merchant.example/hooks/\(index)", eventTypes: ["*"], at: harness.clock.now())
        }
        try harness.createIntent()
        let before = walSync.flushCount
        let report = try await harness.relay.runPass()
        let flushes = walSync.flushCount - before
        #expect(report.published == 1 && report.delivered == WebhookRelay.concurrency, "\(report)")
        #expect(harness.transport.sent.count == WebhookRelay.concurrency)
        #expect(flushes == 2, "\(flushes) flushes for one event to \(WebhookRelay.concurrency) endpoints")
    }
}
