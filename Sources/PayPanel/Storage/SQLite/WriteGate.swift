import Foundation
import PayPanelHTTP
import Synchronization

/// Queues the writers of one database file inside this process, so they wait for each other
/// here instead of in SQLite's busy handler.
///
/// Why: `serve` has several connections to one file (the payment service, the checkout desk,
/// the key ring, the webhook and push queues). SQLite lets one of them write at a time and makes
/// the others sleep in its busy handler, which polls with growing naps (1, 2, 5, 10 … 100 ms).
/// Under load a writer that lost the race sleeps long after the lock is free, so throughput fell
/// as clients were added. A writer waiting on this gate is woken the moment the other commits.
///
/// Writers in other processes still meet at SQLite's lock and its busy handler, as before. The
/// wait here is bounded by the connection's busy timeout and then fails as "busy", exactly what
/// SQLite would have said, so a thread that writes on one connection while inside a write on
/// another connection to the same file gets the same error after the same time, not a deadlock.
final class WriteGate: Sendable {
    private let condition = NSCondition()
    private nonisolated(unsafe) var held = false
    /// The file's group commit, shared like the gate (used once the file is in WAL mode).
    let walSync: WALSync

    /// The database's path as first opened (readiness finds the gate of a path by it).
    let path: String
    /// Device and inode of the database file the gate serves.
    let file: FileIdentity?
    /// Set when a write failed because the disk was full; cleared only by readiness once a
    /// probe write with room to spare fits (`SQLiteStoreFactory.hasRoom`): a small write that
    /// squeezes into the last free blocks does not mean the next one will.
    private let diskFullSeen = Mutex(false)

    init(path: String, file: FileIdentity? = nil) {
        self.path = path
        self.file = file
        walSync = WALSync(flush: WALFlush(databasePath: path, databaseFile: file))
    }

    /// Records how a write on the file ended (nil: it succeeded).
    func noteWrite(failure: (any Error)?) {
        guard (failure as? any StoreFaultError)?.storeFault == .diskFull else { return }
        diskFullSeen.withLock { $0 = true }
    }

    /// True after a write failed on a full disk, until `clearDiskFull`.
    var hasSeenDiskFull: Bool { diskFullSeen.withLock { $0 } }

    /// True for the first caller only: the one connection that copies a lost WAL's frames into
    /// the database file (`Database.write`).
    func claimSalvage() -> Bool {
        salvageClaimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }

    private let salvageClaimed = Mutex(false)

    /// A connection asked to write the file was opened read-only by SQLite (the file was not
    /// writable then); it stays so until the server restarts.
    func noteOpenedReadOnly() {
        openedReadOnly.withLock { $0 = true }
    }

    var hasConnectionOpenedReadOnly: Bool { openedReadOnly.withLock { $0 } }

    private let openedReadOnly = Mutex(false)

    func clearDiskFull() {
        diskFullSeen.withLock { $0 = false }
    }

    /// Waits until the gate is free or `deadline` (a `ContinuousClock` instant) passes; true when
    /// this caller now holds it.
    func enter(before deadline: ContinuousClock.Instant) -> Bool {
        BlockingWait.announce("SQLite write gate")
        condition.lock()
        defer { condition.unlock() }
        while held {
            let left = ContinuousClock().now.duration(to: deadline)
            guard left > .zero else { return false }
            let seconds = left.timeInterval
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        held = true
        return true
    }

    func leave() {
        condition.lock()
        held = false
        condition.signal()
        condition.unlock()
    }

    /// The gate of the file at `path`, shared by every connection of this process to it. Files
    /// are told apart by device and inode, so two spellings of one path share a gate. Nil for an
    /// in-memory database or a file that cannot be examined (nothing to share there).
    static func forFile(at path: String) -> WriteGate? {
        guard path != ":memory:" else { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let key = FileIdentity(status)
        return registry.withLock { gates in
            // A live gate whose file is no longer at its path (deleted while a connection stays
            // open) does not serve a new file that reuses its inode number.
            if let gate = gates[key]?.gate, gate.isStillAtItsPath { return gate }
            // Entries of files nobody has open any more are dropped as new ones come.
            gates = gates.filter { $0.value.gate != nil }
            let gate = WriteGate(path: path, file: key)
            gates[key] = WeakGate(gate: gate)
            return gate
        }
    }

    /// Whether the file at the gate's path is still the file it was made for.
    var isStillAtItsPath: Bool {
        var status = stat()
        return stat(path, &status) == 0 && FileIdentity(status) == file
    }

    /// The live gates opened under `path` (spelled as given to `Database`): how a readiness
    /// probe finds what the server's own connections have seen, even once the file at the path
    /// is another one or none.
    static func gates(openedAt path: String) -> [WriteGate] {
        registry.withLock { gates in gates.values.compactMap(\.gate).filter { $0.path == path } }
    }

    private struct WeakGate {
        weak var gate: WriteGate?
    }

    private static let registry = Mutex<[FileIdentity: WeakGate]>([:])
}
