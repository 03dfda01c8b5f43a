import Foundation
import MockProcessor
@testable import PayPanel
import TestSupport
import Testing

/// The mock processor's in-process calls answer only once their ledger's commit is on disk, but
/// wait for that flush suspended, not holding its thread: the operations it serves meanwhile
/// commit into the same flush (`Database.collectingFlushes`), so concurrent clients do not queue
/// for a flush each. The over-the-wire calls (`processor serve`'s) return once committed and
/// leave the flush to their caller, whose answer waits for it together with its own writes
/// (`ProcessorServeFlushTests`).
@Suite struct LedgerGroupCommitTests {
    /// A ledger-writing call of the processor, with what it needs done before.
    struct EntryPoint: Sendable, CustomTestStringConvertible {
        let name: String
        /// Prepares call `index` (an authorization for a capture, …), outside the measured run.
        let prepare: @Sendable (MockProcessor, Int) async throws -> Void
        /// Makes call `index`; true when it was answered as expected.
        let call: @Sendable (MockProcessor, Int, Date) async throws -> Bool
        var testDescription: String { name }

        static func reference(_ index: Int) -> String { "at_group_\(index)" }

        static func authorized(_ processor: MockProcessor, _ index: Int) async throws {
            let outcome = await processor.authorize(Requests.authorization(reference(index), method: try Requests.card()), timeout: callerTimeout)
            guard case .approved = outcome else { throw PreparationFailed(outcome: "\(outcome)") }
        }

        static func approved(_ answer: WireAnswer) -> Bool {
            if case .answer(.approved, _) = answer { return true }
            return false
        }

        static let inProcess: [EntryPoint] = [
            EntryPoint(name: "authorize (in process)", prepare: { _, _ in }) { processor, index, _ in
                let outcome = await processor.authorize(Requests.authorization(reference(index), method: try Requests.card()), timeout: callerTimeout)
                if case .approved = outcome { return true }
                return false
            },
        ]

        /// The wire calls, which return committed and leave the flush to their caller.
        static let overWire: [EntryPoint] = [
            EntryPoint(name: "authorizeOverWire", prepare: { _, _ in }) { processor, index, now in
                approved(await processor.authorizeOverWire(Requests.authorization(reference(index), method: try Requests.card()), now: now))
            },
            EntryPoint(name: "captureOverWire", prepare: authorized) { processor, index, now in
                approved(await processor.captureOverWire(CaptureRequest(reference: reference(index), amount: Requests.amount(1000)), now: now))
            },
            EntryPoint(name: "voidOverWire", prepare: authorized) { processor, index, now in
                approved(await processor.voidOverWire(reference: reference(index), now: now))
            },
            EntryPoint(name: "refundOverWire", prepare: { processor, index in
                try await authorized(processor, index)
                let answer = await processor.captureOverWire(CaptureRequest(reference: reference(index), amount: Requests.amount(1000)), now: ProcessorHarness.start)
                guard approved(answer) else { throw PreparationFailed(outcome: "\(answer)") }
            }) { processor, index, now in
                approved(await processor.refundOverWire(
                    RefundRequest(reference: reference(index), refundReference: "re_group_\(index)", amount: Requests.amount(400)), now: now))
            },
        ]
    }

    struct PreparationFailed: Error {
        let outcome: String
    }

    /// A fresh processor with `calls` calls of `entryPoint` prepared, and its ledger's entries
    /// and flushes counted after the preparation: the entries first, since reading them waits
    /// for the flush of what the preparation committed.
    static func prepared(_ entryPoint: EntryPoint, calls: Int) async throws
        -> (harness: ProcessorHarness, flushes: QueuedCalls.Flushes, entriesBefore: Int, flushesBefore: Int)
    {
        let harness = try ProcessorHarness()
        let flushes = try #require(QueuedCalls.Flushes(ofFileAt: harness.ledgerPath))
        for index in 0..<calls { try await entryPoint.prepare(harness.processor, index) }
        let entriesBefore = try harness.entries().count
        return (harness, flushes, entriesBefore, flushes.flushCount)
    }

    @Test(arguments: EntryPoint.inProcess)
    func concurrentCallsShareTheLedgersFlushes(_ entryPoint: EntryPoint) async throws {
        let calls = 48
        let (harness, flushes, entriesBefore, before) = try await Self.prepared(entryPoint, calls: calls)
        // The calls must wait in the processor's queue together, and a flush must last until
        // they all committed: neither holds by itself on a loaded machine or a fast disk, so
        // both are arranged (`QueuedCalls`).
        let processor = harness.processor
        let now = harness.clock.now()
        let run = try await QueuedCalls.whileFlushesAreHeld(on: processor, flushes, calls) { index in
            try await entryPoint.call(processor, index, now)
        }
        #expect(run.allQueued, "all \(calls) calls waited in the processor's queue together")
        #expect(run.heldThreads.isEmpty, "waits that held the processor's thread: \(run.heldThreads.prefix(3))")
        #expect(run.committedWhileHeld >= UInt64(calls), "\(run.committedWhileHeld) of \(calls) calls committed while the first one's flush waited")
        #expect(run.flushedWhileHeld == 0, "no flush ran while they were held back")
        #expect(run.results.allSatisfy { $0 }, "\(run.results)")
        // Every call is its own transaction: one flush each when the processor held its thread
        // through every flush (48); shared, far fewer.
        let flushed = flushes.flushCount - before
        #expect(flushed > 0, "the ledger's commits were flushed")
        #expect(flushed < calls / 2, "\(flushed) flushes for \(calls) calls")
        #expect(try harness.entries().count >= entriesBefore + calls, "every call is in the ledger")
    }

    /// A wire call returns as soon as its ledger work is committed: with the file's flushes held
    /// back, every call has returned before any flush ran (when each waited for its own flush,
    /// none returned until the flushes went). The work is in the ledger all the same.
    @Test(arguments: EntryPoint.overWire)
    func wireCallsReturnCommittedAndLeaveTheFlushToTheirCaller(_ entryPoint: EntryPoint) async throws {
        let calls = 8
        let (harness, flushes, entriesBefore, before) = try await Self.prepared(entryPoint, calls: calls)
        let processor = harness.processor
        let now = harness.clock.now()
        let run = try await QueuedCalls.whileFlushesAreHeld(on: processor, flushes, calls) { index in
            let answered = try await entryPoint.call(processor, index, now)
            return (answered: answered, flushesBeforeReturn: flushes.flushCount - before)
        }
        #expect(run.results.allSatisfy { $0.answered }, "\(run.results)")
        #expect(run.flushedWhileHeld == 0, "no flush ran while they were held back")
        #expect(run.results.allSatisfy { $0.flushesBeforeReturn == 0 }, "flushes run before each call returned: \(run.results.map(\.flushesBeforeReturn))")
        #expect(try harness.entries().count >= entriesBefore + calls, "every call is in the ledger")
    }
}
