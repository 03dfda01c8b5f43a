import Foundation
import PayPanelHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Group commit for one SQLite file in WAL mode: many commits, one `fdatasync`.
///
/// Why: with `synchronous = FULL` every COMMIT calls fdatasync on the WAL while it holds the
/// file's only write lock, so every writer of the file waits for every other writer's disk
/// flush in turn: on a disk whose flush costs milliseconds, that chain of flushes is the
/// throughput whatever the number of clients. (The development machine's flush costs about
/// 0.14 ms, and there the difference does not show: docs/benchmarks.md.) Instead the
/// connections commit with `synchronous = NORMAL` — the COMMIT appends its frames to the WAL
/// and returns — and the writer then waits here, outside the lock, until an fdatasync of the
/// WAL that began after its commit has finished. The first waiter to find no flush running
/// starts one for everything committed so far; whoever commits meanwhile waits for the next.
///
/// What it keeps: a write is acknowledged (its `Database.write` returns) only once it is on
/// disk, exactly as with FULL, so an answer a client received survives power loss; a process
/// crash loses nothing either way (the frames are in the OS). Reads at the top level wait for
/// the flush of every commit noted before them, so an answer never shows a state that a power
/// loss could take back. The one gap: a reader can see a commit in the instant between its
/// COMMIT and its note (a few instructions), before it is durable.
///
/// SQLite itself syncs the WAL before a checkpoint copies it into the database and syncs the
/// database after, in NORMAL as in FULL, so a commit is either in the WAL this flushes or
/// already in a synced database file.
final class WALSync: Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private nonisolated(unsafe) var noted: UInt64 = 0
    private nonisolated(unsafe) var flushed: UInt64 = 0
    private nonisolated(unsafe) var flushing = false
    private nonisolated(unsafe) var failure: DatabaseError?
    private nonisolated(unsafe) var flushes = 0
    private nonisolated(unsafe) var flusherThreads = 0
    /// Used only by the one waiter that is flushing (`flushing` set).
    private nonisolated(unsafe) let flush: WALFlush
    /// Writers suspended in `durable`, with their tickets, and whether a flusher thread serves
    /// them (guarded by `condition`).
    private nonisolated(unsafe) var suspended: [(ticket: UInt64, continuation: CheckedContinuation<DatabaseError?, Never>)] = []
    private nonisolated(unsafe) var flusherRunning = false
    /// The flusher thread waits for writers (`flusherRunning` and nobody suspended).
    private nonisolated(unsafe) var flusherIdle = false
    /// Where the idle flusher waits, apart from `condition`: every flush's end broadcasts on
    /// that, and waking the flusher for each cost a context switch per flush for nothing.
    private let flusherWake = NSCondition()
    /// A writer suspended since the flusher went idle (guarded by `flusherWake`).
    private nonisolated(unsafe) var wakePending = false
    /// How long the flusher thread waits for the next suspended writer before it ends, in
    /// seconds (its deadline is a `Date`, which `NSCondition` waits until).
    private let idleLinger: TimeInterval

    /// `flush` makes the WAL's written frames durable, or says why it could not. `idleLinger`:
    /// how long the flusher thread outlives its last writer (see `durable`).
    init(flush: WALFlush, idleLinger: Duration = .milliseconds(200)) {
        self.flush = flush
        self.idleLinger = idleLinger.timeInterval
    }

    /// Called right after a COMMIT (or any change) returned: its ticket for `waitUntilDurable`.
    func noteCommit() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        noted += 1
        return noted
    }

    /// The ticket of the latest commit noted: what a reader may have seen.
    var latestNoted: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return noted
    }

    /// Returns once a flush that began after commit `ticket` was noted has finished. Throws
    /// when a flush failed: the disk's answer about every commit since is unknown, and it stays
    /// so (a failed fdatasync may have dropped the pages; retrying it would report success
    /// without them; a WAL deleted from its path stays deleted), so every later write fails too
    /// until the server is restarted.
    func waitUntilDurable(_ ticket: UInt64) throws(DatabaseError) {
        try waitUntilDurable(ticket, inPlaceByChoice: false)
    }

    /// `inPlaceByChoice`: `durable` found nothing else queued on the caller's thread, so the
    /// wait holds nobody up; any other blocking wait is announced (`announceHoldingThread`).
    private func waitUntilDurable(_ ticket: UInt64, inPlaceByChoice: Bool) throws(DatabaseError) {
        // Only under a test's auditor: otherwise a wait takes no lock more than it did.
        if !inPlaceByChoice, BlockingWait.auditor != nil {
            condition.lock()
            let waits = failure == nil && flushed < ticket
            condition.unlock()
            if waits { BlockingWait.announceHoldingThread("SQLite flush wait") }
        }
        try runAsTheFlusher(until: { flushed >= ticket }, isFlush: true) { flush.run() }
    }

    /// `waitUntilDurable`, suspending the caller instead of blocking its thread: an actor that
    /// committed goes on serving its other callers, whose commits then share the same flush.
    ///
    /// A flusher thread of this file's own runs the flushes for every suspended writer: one
    /// `waitUntilDurable` for the highest ticket waiting (so it joins a flush already running,
    /// as a blocked writer would), then resumes everyone that flush covered, and goes on while
    /// writers wait. When none do it waits `idleLinger` for the next one before it ends: under
    /// load the waiters come in bursts a flush apart, and a thread that ended with each burst
    /// was started again for the next (1.3 threads per create → capture → refund flow of
    /// `bench processor` at 8 clients, each a `clone` and a stack on the committing thread).
    /// A caller on an `ActorThread` with nothing else queued waits in place instead: there is
    /// nobody to share the flush with.
    ///
    /// `nonisolated(nonsending)`: it runs on the caller's executor. As a plain nonisolated
    /// `async` function it ran on whatever executor the task preferred (in `serve`, a handler
    /// thread), so it never saw the caller's thread and started a flusher for every commit.
    nonisolated(nonsending) func durable(_ ticket: UInt64) async throws(DatabaseError) {
        // Nobody else waits for this actor's thread: no commit could join the flush, so it runs
        // here rather than on a flusher thread started (and this thread woken) for it alone.
        if ActorThread.currentHasNothingElseQueued {
            try waitUntilDurable(ticket, inPlaceByChoice: true)
            return
        }
        let outcome: DatabaseError? = await withCheckedContinuation { continuation in
            condition.lock()
            if let failure {
                condition.unlock()
                continuation.resume(returning: failure)
                return
            }
            if flushed >= ticket {
                condition.unlock()
                continuation.resume(returning: nil)
                return
            }
            suspended.append((ticket, continuation))
            let start = !flusherRunning
            flusherRunning = true
            if start { flusherThreads += 1 }
            let wake = !start && flusherIdle
            condition.unlock()
            if wake {
                flusherWake.lock()
                wakePending = true
                flusherWake.signal()
                flusherWake.unlock()
            }
            if start {
                let thread = Thread { self.flushForSuspendedWriters() }
                thread.name = "paypanel-wal-flush"
                thread.start()
            }
        }
        if let outcome { throw outcome }
    }

    private func flushForSuspendedWriters() {
        OwnThread.markCurrent(named: "wal-flush")
        while let target = nextSuspendedTicket() {
            var failure: DatabaseError?
            do throws(DatabaseError) { try waitUntilDurable(target) } catch { failure = error }
            condition.lock()
            // After a failure every waiter gets it (the disk's answer about all of them is
            // unknown); after a success, those whose commit the flush covered.
            let covered = failure == nil ? suspended.filter { $0.ticket <= flushed } : suspended
            suspended.removeAll { failure != nil || $0.ticket <= flushed }
            condition.unlock()
            for writer in covered { writer.continuation.resume(returning: failure) }
        }
    }

    /// The highest ticket a suspended writer waits for; with none waiting, the first to come
    /// within `idleLinger`. Nil when none came: the flusher thread ends (`flusherRunning` off,
    /// under the lock, so the next writer starts a new one).
    ///
    /// A writer that suspends while the flusher is idle sets `wakePending` under `flusherWake`
    /// after appending itself, so a wake between the flusher's two locks is not lost.
    private func nextSuspendedTicket() -> UInt64? {
        // On the flusher's own thread (`OwnThread`), which the auditor tells from the pool's.
        BlockingWait.announce("WAL flusher waiting for writers")
        let deadline = Date(timeIntervalSinceNow: idleLinger)
        condition.lock()
        defer { condition.unlock() }
        while suspended.isEmpty {
            guard Date() < deadline else {
                flusherRunning = false
                return nil
            }
            flusherIdle = true
            condition.unlock()
            flusherWake.lock()
            while !wakePending, flusherWake.wait(until: deadline) {}
            wakePending = false
            flusherWake.unlock()
            condition.lock()
            flusherIdle = false
        }
        return suspended.map(\.ticket).max()
    }

    /// Throws the failure a flush met, if one did: a writer calls this before it begins, so that
    /// nothing more is committed into files a restart would not read.
    func refuseAfterFailure() throws(DatabaseError) {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
    }

    /// The failure a flush met, or nil.
    var recordedFailure: DatabaseError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Checks, without flushing, that the database file and the WAL being flushed are still the
    /// files at their paths (a readiness probe calls this between writes). A failure is kept,
    /// as a failed flush is, so that writes are refused from then on.
    func checkFiles() throws(DatabaseError) {
        var checked = false
        try runAsTheFlusher(until: { checked }) {
            checked = true
            return flush.checkFiles()
        }
    }

    /// Opens the WAL to be flushed now, while it is certainly the file SQLite opened (the
    /// connection just switched to WAL mode), rather than at the first flush.
    func watchFiles() {
        excludingFlushes { flush.openIfNeeded() }
    }

    /// Closes the watched WAL (the file left WAL mode, and SQLite removed it); the next
    /// `watchFiles` opens the new one.
    func forgetFiles() {
        excludingFlushes { flush.closeWAL() }
    }

    /// Runs `work` once no flush runs, and lets none start until it returns: a flush due
    /// meanwhile waits for it, and then covers every commit noted by then. Nothing runs after a
    /// flush failed. (Tests hold flushes back with it to see which commits one flush answers.)
    func excludingFlushes(_ work: () -> Void) {
        var ran = false
        try? runAsTheFlusher(until: { ran }) {
            ran = true
            work()
            return nil
        }
    }

    /// Waits until no one else runs `flush`, then runs `work` (unlocked), until `done` holds
    /// (checked under the lock); a failure `work` returns is kept and thrown to every caller.
    /// For a real flush (`isFlush`), success marks every commit noted before it began flushed.
    /// Called and returning with `condition` unlocked.
    private func runAsTheFlusher(until done: () -> Bool, isFlush: Bool = false, _ work: () -> DatabaseError?) throws(DatabaseError) {
        BlockingWait.announce("SQLite flush wait")
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let failure { throw failure }
            if done() { return }
            if flushing {
                condition.wait()
                continue
            }
            flushing = true
            let target = noted
            condition.unlock()
            let result = work()
            condition.lock()
            flushing = false
            if isFlush { flushes += 1 }
            if let result { failure = result } else if isFlush { flushed = max(flushed, target) }
            condition.broadcast()
        }
    }

    /// How many flushes ran: what the tests count.
    var flushCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return flushes
    }

    /// How many callers wait for a flush suspended (`durable`) now: what a test waits for to
    /// know every one of its calls reached its wait without holding its thread.
    var suspendedWaiters: Int {
        condition.lock()
        defer { condition.unlock() }
        return suspended.count
    }

    /// How many flusher threads `durable` started: none while each waiter flushed in place.
    var flusherThreadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return flusherThreads
    }

    /// Whether a flusher thread runs now (serving writers or waiting for the next).
    var flusherIsRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return flusherRunning
    }
}

/// Commits that have returned but are not on disk yet (`Database.collectingFlushes`): await
/// `wait()` before anything that depends on them leaves the process.
package struct PendingFlush: Sendable {
    let walSync: WALSync?
    let ticket: UInt64

    /// Suspends until the commits are durable; throws when their flush failed.
    package nonisolated(nonsending) func wait() async throws(DatabaseError) {
        guard let walSync else { return }
        try await walSync.durable(ticket)
    }

    /// Blocks the calling thread until the commits are durable (for synchronous code on a
    /// thread of its owner's own); throws when their flush failed.
    package func waitBlocking() throws(DatabaseError) {
        guard let walSync else { return }
        try walSync.waitUntilDurable(ticket)
    }
}

/// The fdatasync of one database's WAL file (`path-wal`), and the check that what it flushed is
/// what a restart will read.
///
/// SQLite writes the WAL through a descriptor of its own. When the file is deleted from its path
/// (an operator's `rm`, a backup job that moves it), SQLite goes on appending to the unlinked
/// file and a later open starts from an empty WAL: every commit since is lost at the next
/// restart. So after each flush this checks that the WAL it flushed (opened when the connection
/// switched to WAL mode, so the file SQLite opened) is still linked and still the file at its
/// path, and that the database file is still the one the gate was made for; anything else fails
/// the write. No errno is taken as success: only a flush that returned 0 is.
///
/// Not thread-safe: `WALSync` lets one thread at a time run it.
final class WALFlush {
    let databasePath: String
    let walPath: String
    /// Device and inode of the database file SQLite opened (nil: not known, not checked).
    private let databaseFile: FileIdentity?
    private var descriptor: Int32 = -1
    private var walFile: FileIdentity?
    /// Instead of the real flush (tests): returns the failure to report, or nil.
    let replacement: (@Sendable () -> DatabaseError?)?

    init(databasePath: String, databaseFile: FileIdentity? = nil, replacement: (@Sendable () -> DatabaseError?)? = nil) {
        self.databasePath = databasePath
        walPath = databasePath + "-wal"
        self.databaseFile = databaseFile
        self.replacement = replacement
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Opens the WAL once; a WAL missing now is reported by the next flush or check.
    func openIfNeeded() {
        guard replacement == nil, descriptor < 0 else { return }
        let opened = open(walPath, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { return }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            close(opened)
            return
        }
        descriptor = opened
        walFile = FileIdentity(status)
    }

    func closeWAL() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        walFile = nil
    }

    /// Nil when the WAL's frames are on disk, in the file at the WAL's path.
    func run() -> DatabaseError? {
        if let replacement { return replacement() }
        openIfNeeded()
        guard descriptor >= 0 else {
            // The connection that committed has the WAL open, so it exists unless someone
            // removed it (or it cannot be opened): either way these commits are not safe.
            let reason = errno
            return reason == ENOENT ? missing(walPath, "is missing") : failure("open", reason)
        }
        while fdatasync(descriptor) != 0 {
            let reason = errno
            guard reason == EINTR else { return failure("fdatasync", reason) }
        }
        // After the flush, so that a deletion racing the flush is seen too.
        return checkFiles()
    }

    /// Nil when the database file and the WAL flushed are still the files at their paths.
    func checkFiles() -> DatabaseError? {
        guard replacement == nil else { return nil }
        if let databaseFile {
            var status = stat()
            guard stat(databasePath, &status) == 0 else { return missing(databasePath, "is missing", errno) }
            guard FileIdentity(status) == databaseFile else { return missing(databasePath, "was replaced by another file") }
        }
        guard descriptor >= 0, let walFile else { return nil }
        var open = stat()
        guard fstat(descriptor, &open) == 0 else { return failure("fstat", errno) }
        if open.st_nlink == 0 { return missing(walPath, "was deleted") }
        var status = stat()
        guard stat(walPath, &status) == 0 else { return missing(walPath, "is missing", errno) }
        guard FileIdentity(status) == walFile else { return missing(walPath, "was replaced by another file") }
        return nil
    }

    /// `file` is no longer at its path (`errno` when a stat failed for another reason than
    /// ENOENT: that is a failure of the disk, not a missing file).
    private func missing(_ file: String, _ what: String, _ number: Int32 = ENOENT) -> DatabaseError {
        guard number == ENOENT else { return failure("stat", number) }
        return DatabaseError(
            .readOnlyDatabaseMoved,
            sqliteMessage: "\(file) \(what) while the database was open; commits since went to a file a restart would not read, so this write and every later one fail",
            sql: "COMMIT")
    }

    private func failure(_ call: String, _ number: Int32) -> DatabaseError {
        // ENOSPC from a flush (thin-provisioned or network disks) is a full disk: say so.
        DatabaseError(
            number == ENOSPC ? .full : .ioErrFsync,
            sqliteMessage: "\(call) of \(walPath) failed: \(String(cString: strerror(number))); whether the latest commits reached the disk is unknown: restart the server so SQLite recovers the file",
            sql: "COMMIT")
    }
}

/// A file as the kernel knows it: device and inode, which outlive renames and tell two files
/// at one path apart.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    init(_ status: stat) {
        self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

/// The group commit of a database file this process has open, as the group-commit tests see
/// it (`QueuedCalls.Flushes`, which holds its flushes back): the commits noted, the flushes
/// run, and a way to keep flushes from starting.
package struct GroupCommitOfFile: Sendable {
    private let walSync: WALSync

    /// Nil when no connection of this process has the file at `path` open.
    package init?(path: String) {
        guard let gate = WriteGate.forFile(at: path) else { return nil }
        walSync = gate.walSync
    }

    package var latestNoted: UInt64 { walSync.latestNoted }
    package var flushCount: Int { walSync.flushCount }
    package func excludingFlushes(_ work: () -> Void) { walSync.excludingFlushes(work) }
}
