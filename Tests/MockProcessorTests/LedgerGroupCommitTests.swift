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
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<authorizations {
                group.addTask {
                    let outcome = await harness.processor.authorize(
                        Requests.authorization("at_group_\(index)", method: try Requests.card()), timeout: callerTimeout)
                    if case .approved = outcome { return true }
                    return false
                }
            }
            for try await approved in group { #expect(approved) }
        }
        // Every authorization is its own transaction: one flush each when the processor held
        // its thread through every flush (48); shared, far fewer.
        let flushes = gate.walSync.flushCount - before
        #expect(flushes > 0, "the ledger's commits were flushed")
        #expect(flushes < authorizations / 2, "\(flushes) flushes for \(authorizations) authorizations")
        #expect(try harness.entries().count >= authorizations, "every authorization is in the ledger")
    }
}
