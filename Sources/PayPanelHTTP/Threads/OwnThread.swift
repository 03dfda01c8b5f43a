import CPayPanelHTTP
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Threads of the process's own (an actor's `ActorThread`, the server's handler threads, a
/// flusher), as opposed to the cooperative pool Swift concurrency shares between every task.
///
/// Why it matters: the cooperative pool has one thread per core (two on the machines this runs
/// on). A synchronous database call — a SQLite commit waiting for its flush, a busy back-off, a
/// libpq round trip — that runs on a pool thread takes that thread from every other task in the
/// process until it returns. So every call that may block its thread runs on a thread of our
/// own, and announces itself (`BlockingWait.announce`) so a test can prove it.
package enum OwnThread {
    /// Marks the calling thread as one of ours, for as long as it lives, and gives it `name`
    /// where `top -H`, `perf` and /proc/<pid>/task/*/comm show it (the kernel keeps 15 bytes:
    /// a longer name is cut here). Foundation's `Thread.name` did not reach the kernel here:
    /// every thread, even the 12-byte `PayPanelHTTP`, showed the program's name in `top -H`.
    package static func markCurrent(named name: String) {
        pthread_setspecific(marker.key, UnsafeRawPointer(bitPattern: 1))
        nameCurrent(name)
    }

    /// Gives the calling thread `name` in the kernel (15 bytes kept), without marking it as
    /// one that may block: the HTTP server's event loop names itself with this.
    package static func nameCurrent(_ name: String) {
        pthread_setname_np(pthread_self(), String(decoding: name.utf8.prefix(15), as: UTF8.self))
    }

    /// True on a thread that `markCurrent` marked.
    package static var isCurrent: Bool {
        pthread_getspecific(marker.key) != nil
    }

    private static let marker = ThreadSpecificKey()
}

/// One slot of thread-specific data (`pthread_key_create`), made once per process: which
/// threads are ours (`OwnThread`), which `ActorThread` runs on the calling thread.
package final class ThreadSpecificKey: Sendable {
    package let key: pthread_key_t

    package init() {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "pthread_key_create failed (\(created)): the process is out of thread-specific keys")
        self.key = key
    }
}

/// A call that may block its thread: store calls (SQLite, libpq), flush waits, busy back-offs.
///
/// Each such call says so first, with `announce`. A test that wants to know whether any of them
/// ran on the shared cooperative pool runs its work under an auditor
/// (`BlockingWait.$auditor.withValue(...)`); the auditor travels with the task (and its child
/// tasks) across every actor hop, so it sees the calls made on the test's behalf wherever they
/// run. Without an auditor, `announce` costs one task-local read.
package enum BlockingWait {
    /// The auditor of the current task, if a test set one.
    @TaskLocal package static var auditor: BlockingWaitAuditor?

    /// Called right before a call that may block the current thread.
    package static func announce(_ what: StaticString) {
        guard let auditor else { return }
        auditor.record(what, onOwnThread: OwnThread.isCurrent)
    }

    /// Called right before a wait that will hold the current thread (a flush not yet done):
    /// under an auditor, noted when it is an actor's `ActorThread` with other jobs waiting behind
    /// the running one. Those jobs (other payments of the same service) stand still for the
    /// whole wait, which should have suspended instead.
    package static func announceHoldingThread(_ what: StaticString) {
        guard let auditor, let queued = ActorThread.jobsQueuedBehindCurrent, queued > 0 else { return }
        auditor.recordHeldThread(what)
    }
}

/// What `BlockingWait.announce` saw while a task ran under this auditor.
package final class BlockingWaitAuditor: Sendable {
    private let seen = Mutex<(onOwnThreads: Int, onSharedThreads: [String], heldThreads: [String])>((0, [], []))

    package init() {}

    func record(_ what: StaticString, onOwnThread: Bool) {
        seen.withLock { seen in
            if onOwnThread {
                seen.onOwnThreads += 1
            } else {
                seen.onSharedThreads.append("\(what)")
            }
        }
    }

    /// Blocking calls that ran on a thread of our own (the test checks that there were some).
    package var onOwnThreads: Int { seen.withLock { $0.onOwnThreads } }

    /// Blocking calls that ran on a shared thread (the cooperative pool, or a caller's), by name.
    package var onSharedThreads: [String] { seen.withLock { $0.onSharedThreads } }

    func recordHeldThread(_ what: StaticString) {
        seen.withLock { $0.heldThreads.append("\(what)") }
    }

    /// Waits that held an actor's thread while other jobs waited behind them, by name.
    package var heldThreads: [String] { seen.withLock { $0.heldThreads } }
}
