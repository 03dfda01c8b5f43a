import Foundation
import MockProcessor
@testable import PayPanel
import TestSupport
import Testing

/// The mock processor answers only once its ledger's commit is on disk, but waits for that
/// flush suspended, not holding its thread: the operations it serves meanwhile commit into the
/// same flush (`Database.collectingFlushes`), so concurrent clients do not queue for a flush each.
@Suite struct LedgerGroupCommitTests {
    @Test func concurrentAuthorizationsShareTheLedgersFlushes() async throws {
        let harness = try ProcessorHarness()
        let gate = try #require(WriteGate.forFile(at: harness.ledgerPath))
        let authorizations = 48
        let before = gate.walSync.flushCount
        // The authorizations must wait in the processor's queue together, and a flush must last
        // until they all committed: neither holds by itself on a loaded machine or a fast disk,
        // so both are arranged (`QueuedCalls`).
        let walSync = gate.walSync
        let flushes = QueuedCalls.Flushes(
            noted: { walSync.latestNoted }, count: { walSync.flushCount }, excluding: { work in walSync.excludingFlushes(work) })
        let run = try await QueuedCalls.whileFlushesAreHeld(on: harness.processor, flushes, authorizations) { index in
            let outcome = await harness.processor.authorize(
                Requests.authorization("at_group_\(index)", method: try Requests.card()), timeout: callerTimeout)
            if case .approved = outcome { return true }
            return false
        }
        #expect(run.allQueued, "all \(authorizations) authorizations waited in the processor's queue together")
        #expect(run.committedWhileHeld >= UInt64(authorizations),
                "\(run.committedWhileHeld) of \(authorizations) authorizations committed while the first one's flush waited")
        #expect(run.flushedWhileHeld == 0, "no flush ran while they were held back")
        #expect(run.results.allSatisfy { $0 })
        // Every authorization is its own transaction: one flush each when the processor held
        // its thread through every flush (48); shared, far fewer.
        let flushed = gate.walSync.flushCount - before
        #expect(flushed > 0, "the ledger's commits were flushed")
        #expect(flushed < authorizations / 2, "\(flushed) flushes for \(authorizations) authorizations")
        #expect(try harness.entries().count >= authorizations, "every authorization is in the ledger")
    }
}
