import Foundation

/// Opens the stores of one payments database, whichever kind it is: what a front end that
/// needs several of them (`serve`: the payment service, whose store the checkout desk shares,
/// the API-key checks, the idempotency keys) holds instead of a file path. Each call opens a new instance, with its
/// own owner; instances of one factory see one database.
///
/// Adopters: `SQLiteStoreFactory` (a file; each store its own connection) and, with the
/// `PostgreSQL` trait, the PostgreSQL store's factory in target `PayPanelPostgres` (one schema;
/// every store shares one small connection pool).
package protocol PaymentStoreFactory: Sendable {
    /// The payments and the checkouts (`PaymentStore` refines `CheckoutStore`).
    func openPaymentStore() throws -> sending any PaymentStore
    func openAPIKeyStore() throws -> sending any APIKeyStore
    /// Events, webhook endpoints and deliveries (migration 0006), for the relay and the routes.
    func openWebhookStore() throws -> sending any WebhookStore
    /// Devices and the push queue (migration 0007).
    func openDeviceStore() throws -> sending any DeviceStore
    /// Nil when the database answers and holds exactly this program's migrations; otherwise
    /// why not, in words for a readiness probe.
    func notReadyReason() -> String?
    /// `notReadyReason` with the fault behind it when one is known (a full disk, a read-only
    /// or missing file): what `/readyz` answers. Checked again at every call, so readiness
    /// returns once the condition clears (except where a restart is needed: a lost WAL, a
    /// failed flush).
    func readiness() -> StoreNotReady?
}

extension PaymentStoreFactory {
    /// A store that knows no faults of its own: its reason, with none named.
    package func readiness() -> StoreNotReady? {
        notReadyReason().map { StoreNotReady(fault: nil, reason: $0) }
    }
}

/// The stores of one SQLite payments file, each on a connection of its own (WAL lets them
/// read while one writes). The first open creates and migrates the file.
public struct SQLiteStoreFactory: PaymentStoreFactory {
    public let path: String
    public let clock: any WallClock

    public init(path: String, clock: any WallClock) {
        self.path = path
        self.clock = clock
    }

    public func openPaymentStore() throws -> sending any PaymentStore {
        try SQLitePaymentStore(path: path, clock: clock)
    }

    package func openAPIKeyStore() throws -> sending any APIKeyStore {
        SQLiteAPIKeyStore(database: try Database.openMigrated(path: path, set: .main, clock: clock))
    }

    package func openWebhookStore() throws -> sending any WebhookStore {
        SQLiteWebhookStore(database: try Database.openMigrated(path: path, set: .main, clock: clock))
    }

    package func openDeviceStore() throws -> sending any DeviceStore {
        SQLiteDeviceStore(database: try Database.openMigrated(path: path, set: .main, clock: clock))
    }

    public func notReadyReason() -> String? {
        readiness()?.reason
    }

    /// Ready when: no connection of this process met a failed flush; the database file and its
    /// WAL are still the files those connections write; every file of the database is writable;
    /// after a write failed on a full disk, there is room again; and the database answers with
    /// this program's migrations. The reasons name no path (anyone who reaches `/readyz` reads
    /// them); the failing writes' errors, in the server's log, do.
    package func readiness() -> StoreNotReady? {
        // First what the server's own connections know: a fresh connection opened here would
        // happily start a new, empty WAL in place of a deleted one.
        for gate in WriteGate.gates(openedAt: path) {
            do throws(DatabaseError) {
                try gate.walSync.checkFiles()
            } catch {
                return Self.notReady(error.storeFault ?? .ioError)
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            return errno == ENOENT ? Self.notReady(.fileMissing) : StoreNotReady(fault: nil, reason: "the payments database cannot be read")
        }
        // access(2) sees what a write would meet: file modes for this user, a read-only mount,
        // an immutable file (chattr +i), even for root.
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            if access(file, W_OK) != 0 { return Self.notReady(.readOnly) }
        }
        if WriteGate.gates(openedAt: path).contains(where: \.hasConnectionOpenedReadOnly) {
            return StoreNotReady(fault: .readOnly, reason: "the payments database was read-only when the server opened it: writes fail until the server is restarted with the file writable")
        }
        for gate in WriteGate.gates(openedAt: path) where gate.hasSeenDiskFull {
            if Self.hasRoom(besides: path) { gate.clearDiskFull() } else { return Self.notReady(.diskFull) }
        }
        do {
            let database = try Database(path: path, options: Database.Options(readOnly: true, create: false))
            _ = try database.queryFirst("SELECT 1", []) { $0.int64(0) }
            let status = try Migrator(set: .main).status(database)
            if !status.pending.isEmpty {
                return StoreNotReady(fault: nil, reason: "the database lacks \(status.pending.count) migration(s): restart the server to apply them")
            }
            return nil
        } catch {
            let fault = (error as? any StoreFaultError)?.storeFault
            return fault.map(Self.notReady) ?? StoreNotReady(fault: nil, reason: "the payments database cannot be read")
        }
    }

    /// The probe's sentence for `fault`: what is wrong and what the operator does.
    static func notReady(_ fault: StoreFault) -> StoreNotReady {
        let reason = switch fault {
        case .busy: "the payments database is locked past the busy timeout"
        case .diskFull: "the payments database's disk is full: writes fail until space is freed"
        case .readOnly: "the payments database (or its -wal or -shm file) is not writable by the server: writes fail until its permissions or mount allow them"
        case .fileMissing: "the payments database or its write-ahead log was deleted or replaced while the server ran: writes are refused; put the files back and restart the server (its log names the files)"
        case .corrupt: "the payments database is malformed: restore it from a backup"
        case .ioError: "the disk failed a flush of the payments database: writes are refused; check the disk, then restart the server"
        case .unreachable: "the payments database server cannot be reached: check that it runs and accepts connections (the server reconnects by itself)"
        }
        return StoreNotReady(fault: fault, reason: reason)
    }

    /// Whether a write of a few pages fits beside `path` now: writes and removes a small
    /// file in its directory. Run only after a write failed on a full disk, to see if that
    /// cleared; a figure from statvfs would not see quotas or a file-size limit.
    static func hasRoom(besides path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        let probe = (directory.isEmpty ? "." : directory) + "/.paypanel-space-probe-\(getpid())"
        let descriptor = open(probe, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer {
            close(descriptor)
            unlink(probe)
        }
        // 1 MiB: many commits' worth of WAL frames, so that readiness does not come back for
        // the few kilobytes a failed write left free.
        let bytes = [UInt8](repeating: 0, count: 1024 * 1024)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return fsync(descriptor) == 0
    }
}
