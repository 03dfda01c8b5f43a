import Foundation

/// Why a store cannot take a write right now: a condition of the database or its disk, not of
/// the request. A front end answers it with "unavailable, retry later" (HTTP 503 with
/// `Retry-After`) and a code naming the cause, and reports it in its readiness probe; never as an
/// internal error, and never as a refusal of the request itself.
package enum StoreFault: String, Sendable, Equatable, CaseIterable {
    /// Another writer held the database past the busy timeout.
    case busy = "database_busy"
    /// The disk (or the file system holding the database) has no room for the write.
    case diskFull = "disk_full"
    /// The database file, or its -wal or -shm file, cannot be written by this process.
    case readOnly = "database_read_only"
    /// The database file or its write-ahead log was deleted or replaced while open: whatever is
    /// written now would go to a file that a restart does not read.
    case fileMissing = "database_file_missing"
    /// SQLite found the file malformed.
    case corrupt = "database_corrupt"
    /// The disk failed a read, a write or a flush.
    case ioError = "database_io_error"
    /// The database server cannot be reached: stopped, restarting, failing over, or the
    /// connection broke (PostgreSQL). Connections are opened again on the next request.
    case unreachable = "database_unreachable"

    /// The error code clients see.
    package var code: String { rawValue }

    /// Seconds a client should wait before retrying: a lock clears in moments; the others need
    /// an operator (free space, fix permissions, restore files), so retrying sooner only adds load.
    /// A server that restarts or fails over is back in seconds.
    package var retryAfterSeconds: Int {
        switch self {
        case .busy: 1
        case .unreachable: 5
        case .diskFull, .readOnly, .fileMissing, .corrupt, .ioError: 30
        }
    }

    /// What a client is told: the cause and what to do, naming no file (clients do not need the
    /// server's paths; the operator's log and readiness have them).
    package var clientMessage: String {
        switch self {
        case .busy: "the payments database is busy: retry the request (with the same Idempotency-Key)"
        case .diskFull: "the payments database's disk is full, so nothing was saved: retry later (with the same Idempotency-Key)"
        case .readOnly: "the payments database is read-only for the server, so nothing was saved: retry later (with the same Idempotency-Key)"
        case .fileMissing: "the payments database's files were removed or replaced while the server ran, so it takes no writes until it is restarted: retry later (with the same Idempotency-Key)"
        case .corrupt: "the payments database is damaged and takes no writes: retry later (with the same Idempotency-Key)"
        case .ioError: "the payments database's disk failed, so the server takes no writes until it is restarted: retry later (with the same Idempotency-Key)"
        case .unreachable: "the payments database cannot be reached right now: retry later with the same Idempotency-Key (the retry finishes or replays whatever this request started)"
        }
    }
}

/// An error that may be a `StoreFault` (each store's own error type says which of its failures are).
package protocol StoreFaultError: Error {
    /// The condition behind this failure, or nil when it is about the operation itself.
    var storeFault: StoreFault? { get }
}

/// Why a store is not ready to serve: its fault when one is known, and a sentence for the probe.
package struct StoreNotReady: Sendable, Equatable {
    package let fault: StoreFault?
    package let reason: String

    package init(fault: StoreFault?, reason: String) {
        self.fault = fault
        self.reason = reason
    }
}
