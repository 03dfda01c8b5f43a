import Foundation
import PayPanel
import PayPanelHTTP
import Synchronization

/// Calls that wait in an actor's queue together, for tests of group commit: the commits of
/// calls an actor serves while an earlier commit waits for its flush share the next flush.
///
/// A test cannot get that overlap by starting tasks together. On a loaded machine (the whole
/// suite in parallel on 2 cores) they reach the actor one at a time, and on a fast disk a flush
/// can end before the next call commits; either way each commit rightly flushes alone, and a
/// count of flushes measures the machine. So the actor's thread is held until every call waits
/// in its queue, and the file's flushes are held back until every call has committed: what is
/// left to see is whether the actor went on serving while a commit waited (group commit) or
/// held its thread through the wait (none).
public enum QueuedCalls {
    /// Bounds every wait here. Generous: with the whole suite starting at once the pool may run
    /// none of a test for minutes; the deadline only stops a hang.
    public static let patience = Duration.seconds(600)

    /// The file's group commit as the test sees it (`WALSync`, internal to `PayPanel`).
    public struct Flushes: Sendable {
        /// Commits noted so far.
        let noted: @Sendable () -> UInt64
        /// Flushes run so far.
        let count: @Sendable () -> Int
        /// Runs its argument while no flush can run (`WALSync.excludingFlushes`).
        let excluding: @Sendable (() -> Void) -> Void

        public init(noted: @escaping @Sendable () -> UInt64, count: @escaping @Sendable () -> Int,
                    excluding: @escaping @Sendable (() -> Void) -> Void) {
            self.noted = noted
            self.count = count
            self.excluding = excluding
        }
    }

    /// What happened while the flushes were held back.
    public struct HeldRun<T: Sendable>: Sendable {
        /// The calls' results, in the order of their indexes.
        public let results: [T]
        /// Every call waited in the actor's queue before the first ran.
        public let allQueued: Bool
        /// Commits noted while no flush could run: at least one per call when the actor served
        /// the next call while a commit waited; one when it held its thread through the wait.
        public let committedWhileHeld: UInt64
        /// Flushes run while they were held back: none, unless the hold failed.
        public let flushedWhileHeld: Int
        /// Waits for a flush that held the actor's thread with other calls queued behind it
        /// (`BlockingWait.announceHoldingThread`), by name: none when the actor suspends.
        public let heldThreads: [String]
    }

    /// Makes `count` calls `call(0)`, `call(1)`, … at once to `actor`, whose executor is an
    /// `ActorThread`: its thread is held until all of them wait in its queue, so that none runs
    /// before the others were made. `allQueued` is false when they never all waited (the
    /// deadline passed, or the actor has no `ActorThread`).
    public static func together<T: Sendable>(
        on actor: any Actor, _ count: Int, _ call: @escaping @Sendable (Int) async throws -> T
    ) async throws -> (results: [T], allQueued: Bool) {
        let started = Flag()
        let holder = Task { await hold(actor, untilQueued: count, started: started) }
        try await wait(for: started)
        return try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for index in 0..<count { group.addTask { (index, try await call(index)) } }
            let allQueued = await holder.value
            var results = [T?](repeating: nil, count: count)
            for try await (index, result) in group { results[index] = result }
            return (results.map { $0! }, allQueued)
        }
    }

    /// `together`, while the file's flushes are held back until `count` commits were noted
    /// (or the deadline passed); then they go, and the calls finish.
    ///
    /// The calls run under a `BlockingWaitAuditor`: a call that waits for its flush holding the
    /// actor's thread can never let the others commit, so the flushes go at once when one is
    /// seen (`heldThreads`), rather than after `patience`, and the test fails in seconds.
    public static func whileFlushesAreHeld<T: Sendable>(
        on actor: any Actor, _ flushes: Flushes, _ count: Int, _ call: @escaping @Sendable (Int) async throws -> T
    ) async throws -> HeldRun<T> {
        let flushesBefore = flushes.count()
        let notedBefore = flushes.noted()
        let holding = Flag()
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        Thread.detachNewThread {
            flushes.excluding {
                holding.set()
                release.wait()
            }
        }
        try await wait(for: holding)
        let auditor = BlockingWaitAuditor()
        async let run = BlockingWait.$auditor.withValue(auditor) { try await together(on: actor, count, call) }
        let deadline = ContinuousClock.now.advanced(by: patience)
        while flushes.noted() - notedBefore < UInt64(count), auditor.heldThreads.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let committed = flushes.noted() - notedBefore
        let flushed = flushes.count() - flushesBefore
        release.signal()
        let (results, allQueued) = try await run
        return HeldRun(
            results: results, allQueued: allQueued, committedWhileHeld: committed, flushedWhileHeld: flushed, heldThreads: auditor.heldThreads)
    }

    /// Runs on `actor`'s thread (an `isolated` parameter) and holds it (`holdCurrentThread`).
    private static func hold(_ actor: isolated any Actor, untilQueued count: Int, started: Flag) -> Bool {
        started.set()
        return holdCurrentThread(untilQueued: count)
    }

    /// Blocks the calling `ActorThread` until `count` jobs wait in its queue behind the one
    /// running, or `patience` passed: whether they did (false at once on any other thread).
    public static func holdCurrentThread(untilQueued count: Int) -> Bool {
        guard ActorThread.jobsQueuedBehindCurrent != nil else { return false }
        let deadline = ContinuousClock.now.advanced(by: patience)
        while ActorThread.jobsQueuedBehindCurrent ?? 0 < count, ContinuousClock.now < deadline { usleep(1000) }
        return ActorThread.jobsQueuedBehindCurrent ?? 0 >= count
    }

    /// Waits until `flag` is set; throws when `patience` passed first.
    public static func wait(for flag: Flag) async throws {
        let deadline = ContinuousClock.now.advanced(by: patience)
        while !flag.isSet, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        guard flag.isSet else { throw HoldNeverBegan() }
    }

    struct HoldNeverBegan: Error, CustomStringConvertible {
        var description: String { "the hold (of the actor's thread or of the flushes) did not begin within \(QueuedCalls.patience)" }
    }

    /// Set once, by one thread or task, and read by another.
    public final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        public init() {}
        public func set() { value.store(true, ordering: .releasing) }
        public var isSet: Bool { value.load(ordering: .acquiring) }
    }
}

extension QueuedCalls.Flushes {
    /// The group commit of the database file at `path`, which a connection of this process has
    /// open; nil when none has.
    package init?(ofFileAt path: String) {
        guard let file = GroupCommitOfFile(path: path) else { return nil }
        self.init(noted: { file.latestNoted }, count: { file.flushCount }, excluding: { work in file.excludingFlushes(work) })
    }

    /// Flushes run so far.
    public var flushCount: Int { count() }

    /// Commits noted so far.
    public var commitCount: UInt64 { noted() }
}
