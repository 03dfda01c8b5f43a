import Foundation

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
    /// Used only by the one waiter that is flushing (`flushing` set).
    private nonisolated(unsafe) let flush: WALFlush

    /// `flush` makes the WAL's written frames durable, or says why it could not.
    init(flush: WALFlush) {
        self.flush = flush
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
    /// without them), so every later write fails too until the server is restarted.
    func waitUntilDurable(_ ticket: UInt64) throws(DatabaseError) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let failure { throw failure }
            if flushed >= ticket { return }
            if flushing {
                condition.wait()
                continue
            }
            flushing = true
            let target = noted
            condition.unlock()
            let result = flush.run()
            condition.lock()
            flushing = false
            flushes += 1
            if let result { failure = result } else { flushed = max(flushed, target) }
            condition.broadcast()
        }
    }

    /// How many flushes ran: what the tests count.
    var flushCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return flushes
    }
}

/// The fdatasync of one database's WAL file (`path-wal`), reopened when SQLite has replaced it.
/// Not thread-safe: `WALSync` lets one thread at a time run it.
final class WALFlush {
    let walPath: String
    private var descriptor: Int32 = -1
    private var inode: UInt64 = 0
    /// Instead of the real flush (tests): returns the failure to report, or nil.
    let replacement: (@Sendable () -> DatabaseError?)?

    init(databasePath: String, replacement: (@Sendable () -> DatabaseError?)? = nil) {
        walPath = databasePath + "-wal"
        self.replacement = replacement
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Nil when the WAL's frames are on disk.
    func run() -> DatabaseError? {
        if let replacement { return replacement() }
        var status = stat()
        guard stat(walPath, &status) == 0 else {
            // No WAL: the last connection checkpointed it into the database (synced) and removed it.
            return errno == ENOENT ? nil : failure("stat", errno)
        }
        if descriptor < 0 || UInt64(status.st_ino) != inode {
            if descriptor >= 0 { close(descriptor) }
            descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return errno == ENOENT ? nil : failure("open", errno) }
            inode = UInt64(status.st_ino)
        }
        while fdatasync(descriptor) != 0 {
            guard errno == EINTR else { return failure("fdatasync", errno) }
        }
        return nil
    }

    private func failure(_ call: String, _ number: Int32) -> DatabaseError {
        DatabaseError(
            .ioErrFsync,
            sqliteMessage: "\(call) of \(walPath) failed: \(String(cString: strerror(number))); whether the latest commits reached the disk is unknown: restart the server so SQLite recovers the file",
            sql: "COMMIT")
    }
}
