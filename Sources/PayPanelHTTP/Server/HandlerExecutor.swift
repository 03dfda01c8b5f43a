import Foundation
import Synchronization

/// The threads request handlers run on: a `TaskExecutor` of its own, so a server shares no
/// thread with the rest of the process's Swift concurrency.
///
/// Why: the global cooperative pool has one thread per core (two here). Code elsewhere in the
/// process that blocks a pool thread — a synchronous SQLite commit waiting for fsync, a test
/// that waits on a child process — would otherwise stall every request until it is done.
/// Handler tasks prefer this executor (`Task(executorPreference:)`), and so does the
/// nonisolated async code they call; actor-isolated work still hops to its actor.
final class HandlerExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: the job queue is behind `condition`; `threads` is written once in init.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var threads: [Thread] = []
    private var stopping = false

    /// `threadCount` threads (at least 1), named for debuggers.
    init(threadCount: Int, name: String = "paypanel-http-handler") {
        for index in 0..<max(1, threadCount) {
            // Each thread keeps the executor alive until it has drained the queue and ended.
            let thread = Thread { self.work(named: "handler-\(index)") }
            thread.name = "\(name)-\(index)"
            threads.append(thread)
        }
        threads.forEach { $0.start() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if stopping {
            // A handler still finishing after the server stopped (a cancelled one waking up):
            // give it a thread of its own rather than leave it suspended forever.
            condition.unlock()
            Thread { unowned.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
            return
        }
        jobs.append(unowned)
        condition.unlock()
        // After unlocking, as `ActorThread.enqueue` does, and for the same reason.
        condition.signal()
    }

    /// Lets the threads finish the queued jobs, then end; later jobs each get a thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work(named name: String) {
        OwnThread.markCurrent(named: name)
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty && stopping {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
