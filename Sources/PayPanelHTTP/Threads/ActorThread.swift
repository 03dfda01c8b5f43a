import Foundation
import Synchronization

/// A serial executor with one thread of its own: an actor whose methods call a synchronous
/// store runs on it, so the store's waits (a commit's flush, a busy back-off, a network round
/// trip to PostgreSQL) block this thread and never one of the cooperative pool's.
///
/// This is GRDB's rule — each database connection has its own serial queue — applied to the
/// actors that own a connection: the actor's isolation already makes its uses of the connection
/// serial, and the thread makes them cheap for everyone else. Callers `await` the actor as
/// before and suspend while it works.
///
/// Use:
/// ```swift
/// actor Ledger {
///     private let thread = ActorThread(name: "ledger")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
///     deinit { thread.stop() }
/// }
/// ```
/// The thread ends once `stop()` was called and the jobs queued before it have run.
package final class ActorThread: SerialExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `next` and `stopping` are only touched under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0
    private var stopping = false
    private let enqueued = Atomic<Int>(0)

    /// Starts the thread, named `name` for debuggers and `top -H` (`OwnThread.markCurrent`).
    package init(name: String) {
        // The thread keeps the executor alive until it has drained the queue after `stop()`.
        let thread = Thread { self.run(named: name) }
        thread.name = "paypanel-\(name)"
        thread.start()
    }

    /// True on an `ActorThread` whose queue holds no other job than the one running: a job
    /// that has to wait for something short (a commit's flush) may then wait in place. To
    /// suspend instead would hand the wait to another thread and wake this one again after it,
    /// two context switches and, for a flush, a thread started for nothing to share. False on
    /// any other thread, and whenever another job waits: then suspending lets it run meanwhile.
    package static var currentHasNothingElseQueued: Bool { jobsQueuedBehindCurrent == 0 }

    /// How many jobs wait on the calling thread's `ActorThread` behind the one running; nil on
    /// any other thread. (A test holds an actor's thread until its callers are all queued.)
    package static var jobsQueuedBehindCurrent: Int? {
        guard let current = pthread_getspecific(running.key) else { return nil }
        let thread = Unmanaged<ActorThread>.fromOpaque(current).takeUnretainedValue()
        thread.condition.lock()
        defer { thread.condition.unlock() }
        return thread.jobs.count - thread.next
    }

    /// Which `ActorThread` runs on the calling thread, if any (set when its thread starts).
    private static let running = ThreadSpecificKey()

    /// Jobs enqueued so far: each time a task came to this thread, or came back to it after a
    /// suspension or a switch. (A test counts them per request: a call that hops where it
    /// could run in place shows there.)
    package var jobsEnqueued: Int { enqueued.load(ordering: .relaxed) }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueued.wrappingAdd(1, ordering: .relaxed)
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.unlock()
        // After unlocking: a thread woken while the lock is still held would wake only to wait
        // for it (a futex wait and a second wake-up). The job is queued under the lock and the
        // thread checks the queue under it before it waits, so no wake-up is lost.
        condition.signal()
    }

    /// Lets the thread run what is queued, then end. The owning actor calls this in its deinit;
    /// a job enqueued later (there can be none: nothing refers to the actor any more) would
    /// still run, on the thread, before it ends.
    package func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run(named name: String) {
        OwnThread.markCurrent(named: name)
        // The thread holds `self` until it ends, so the unretained pointer stays valid.
        pthread_setspecific(Self.running.key, Unmanaged.passUnretained(self).toOpaque())
        let executor = asUnownedSerialExecutor()
        while true {
            condition.lock()
            while next == jobs.count && !stopping { condition.wait() }
            if next == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[next]
            next += 1
            // Reclaim the array's front now and then rather than shifting it on every job.
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
