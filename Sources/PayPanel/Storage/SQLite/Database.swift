import Foundation
internal import CSQLite
import PayPanelHTTP

/// One SQLite connection with PayPanel's settings: WAL with group commit (`WALSync`), foreign
/// keys on, a busy timeout, extended result codes, defensive mode. Files are created 0600.
///
/// A connection has one owner (an actor, or one command) and is deliberately not `Sendable`.
public final class Database {
    /// The connection's one owner, made from a handle `sqlite3_open_v2` opened: closing it is
    /// its job alone, so this init may fail after opening (a file that is not a database fails
    /// at one of the PRAGMAs) without anything closing the handle twice.
    private let connection: SQLiteConnectionHandle
    /// Reached from outside only through `withHandle`, so the connection cannot be closed while
    /// SQLite holds its pointer.
    private var handle: OpaquePointer { connection.pointer }
    /// The file path (or `:memory:`), used in error messages.
    package let path: String
    /// How long a write waits for another process's lock before failing with "locked".
    package let busyTimeout: Duration
    private var statementCache: [String: Statement] = [:]
    private var transactionDepth = 0
    /// Shared with this process's other connections to the same file (nil in memory or
    /// read-only): see `WriteGate`.
    private let writeGate: WriteGate?
    /// Set once the file is in WAL mode: commits no longer wait for the disk inside the write
    /// lock (`synchronous = NORMAL`); `write` waits for the file's group flush after it instead.
    private var walSync: WALSync?
    /// Set while `collectingFlushes` runs: the writes and settled reads inside it return without
    /// waiting for their flush and leave their highest ticket here instead.
    private var collectedTicket: UInt64??

    /// How to open a database.
    public struct Options: Sendable {
        /// Open read-only (no migrations, no writes).
        public var readOnly = false
        /// Create the file (mode 0600) when it does not exist.
        public var create = true
        public var busyTimeout: Duration = .seconds(5)
        /// Switch a file database to WAL on open. `openMigrated` turns this off and switches
        /// only after checking the file is one of ours: the switch rewrites the file header,
        /// and a file we refuse must be left exactly as it was.
        public var writeAheadLog = true

        public init(readOnly: Bool = false, create: Bool = true, busyTimeout: Duration = .seconds(5), writeAheadLog: Bool = true) {
            self.readOnly = readOnly
            self.create = create
            self.busyTimeout = busyTimeout
            self.writeAheadLog = writeAheadLog
        }
    }

    /// Opens (and when allowed creates) the database at `path`; `:memory:` gives a private
    /// in-memory database.
    package init(path: String, options: Options = Options()) throws(DatabaseError) {
        self.path = path
        self.busyTimeout = options.busyTimeout
        let inMemory = path == ":memory:"
        if !inMemory && !options.readOnly && options.create {
            try Database.createFilePrivately(path)
        }
        Database.configureSQLite
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if inMemory { flags |= SQLITE_OPEN_MEMORY | SQLITE_OPEN_CREATE }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // SQLite allocates a handle even when opening fails; nothing owns it yet, so this
            // is its one close.
            sqlite3_close_v2(connection)
            throw DatabaseError(extendedCode: code, sqliteMessage: message, sql: nil)
        }
        self.connection = SQLiteConnectionHandle(taking: connection)
        self.writeGate = inMemory || options.readOnly ? nil : WriteGate.forFile(at: path)
        // Asked for read-write, SQLite quietly opens a file it may not write read-only: every
        // write on this connection will fail until it is reopened, which readiness must say.
        if sqlite3_db_readonly(connection, "main") == 1 { writeGate?.noteOpenedReadOnly() }
        sqlite3_extended_result_codes(connection, 1)
        _ = paypanel_sqlite3_enable_defensive(connection)
        _ = paypanel_sqlite3_disable_load_extension(connection)
        let milliseconds = options.busyTimeout.wholeMilliseconds
        sqlite3_busy_timeout(connection, Int32(clamping: milliseconds))
        // The first statement reads the header: a file that is not a database fails here.
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA trusted_schema = OFF")
        if !inMemory && !options.readOnly {
            // FULL: a committed payment survives power loss, not just a process crash. In WAL
            // mode the same holds with group commit instead (see `useGroupCommit`).
            try execute("PRAGMA synchronous = FULL")
            if options.writeAheadLog { try enableWriteAheadLog() }
        }
    }

    /// Process-wide SQLite settings, made once before the first connection opens (SQLite
    /// ignores them afterwards): see `paypanel_sqlite3_disable_memory_statistics`.
    private static let configureSQLite: Void = {
        _ = paypanel_sqlite3_disable_memory_statistics()
    }()

    /// Switches the file to WAL (readers never block the writer). Persistent: it changes the
    /// file header. Does nothing for in-memory databases or a file already in WAL mode.
    ///
    /// The switch needs the file to itself and SQLite does not always wait for that through
    /// the busy handler (several processes opening a new file at once), so it is retried here
    /// until the busy timeout is spent.
    package func enableWriteAheadLog() throws(DatabaseError) {
        guard path != ":memory:" else { return }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: busyTimeout)
        var pause = Duration.milliseconds(1)
        while true {
            var failure: DatabaseError?
            do throws(DatabaseError) {
                var mode = try pragmaText("PRAGMA journal_mode")
                if mode != "wal" { mode = try pragmaText("PRAGMA journal_mode = WAL") }
                if mode == "wal" {
                    try useGroupCommit()
                    return
                }
            } catch {
                guard error.isBusy else { throw error }
                failure = error
            }
            guard clock.now < deadline else {
                throw failure ?? DatabaseError(.busy, sqliteMessage: "could not switch to WAL", sql: "PRAGMA journal_mode = WAL")
            }
            BlockingWait.announce("SQLite busy back-off")
            Thread.sleep(forTimeInterval: pause.timeInterval)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Commits append to the WAL without a flush (`synchronous = NORMAL`) and `write` then waits
    /// for the group flush of `WALSync`: durable when acknowledged, as with FULL, but one
    /// fdatasync for all the commits made meanwhile, outside the write lock. Only for a
    /// writable file connection in WAL mode (NORMAL without WAL would not be durable).
    private func useGroupCommit() throws(DatabaseError) {
        guard walSync == nil, let writeGate else { return }
        try execute("PRAGMA synchronous = NORMAL")
        walSync = writeGate.walSync
        writeGate.walSync.watchFiles()
    }

    /// The text the pragma `sql` returns (its first column of its first row).
    private func pragmaText(_ sql: String) throws(DatabaseError) -> String {
        let statement = try statement(sql)
        try statement.bind([])
        defer { statement.reset() }
        return try statement.step() ? Row(statement: statement).string(0).lowercased() : ""
    }

    deinit {
        // Statements first; the connection closes after this, when `connection` is released.
        // (sqlite3_close_v2 would wait for unfinalized statements anyway.)
        statementCache.removeAll()
    }

    /// Runs `body` with the `sqlite3` connection, which stays open until `body` returns. The
    /// pointer must not outlive `body`.
    func withHandle<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(handle) }
    }

    /// Creates an empty file readable by its owner only, before SQLite opens it; SQLite gives
    /// the -wal and -shm files the same permissions.
    private static func createFilePrivately(_ path: String) throws(DatabaseError) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let reason = errno
        if reason == EEXIST { return }
        throw DatabaseError(.cantOpen, sqliteMessage: String(cString: strerror(reason)), sql: nil)
    }

    func error(code: Int32, sql: String?) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return DatabaseError(extendedCode: extended != 0 ? extended : code, sqliteMessage: message, sql: sql)
    }

    // MARK: - Statements

    /// A prepared statement for `sql`, cached on this connection.
    package func statement(_ sql: String) throws(DatabaseError) -> Statement {
        if let cached = statementCache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one statement that returns no rows. Outside a transaction a change is its own
    /// commit, and returns once it is durable.
    package func execute(_ sql: String, _ values: [any DatabaseBindable] = []) throws(DatabaseError) {
        let statement = try run(sql, values)
        // `PRAGMA journal_mode = DELETE` (a tool converting a file back) makes SQLite remove the
        // WAL itself: group commit stops, and the WAL it watched is no longer a loss.
        if walSync != nil, statement.namesJournalMode, try pragmaText("PRAGMA journal_mode") != "wal" {
            walSync?.forgetFiles()
            walSync = nil
            return
        }
        if transactionDepth == 0, let walSync {
            let ticket = statement.isReadOnly ? walSync.latestNoted : walSync.noteCommit()
            guard !collect(ticket) else { return }
            do throws(DatabaseError) {
                try walSync.waitUntilDurable(ticket)
            } catch {
                throw afterDurabilityFailure(error)
            }
        }
    }

    /// Inside `collectingFlushes`: leaves `ticket` for its caller to await, and says so.
    private func collect(_ ticket: UInt64) -> Bool {
        guard let collecting = collectedTicket else { return false }
        collectedTicket = .some(max(collecting ?? 0, ticket))
        return true
    }

    /// `execute` for the transaction's own BEGIN, COMMIT and ROLLBACK: `write` and `read` wait
    /// for the flush themselves.
    private func control(_ sql: String) throws(DatabaseError) {
        _ = try run(sql, [])
    }

    /// Steps `sql` to its end; returns its (cached) statement, which says whether it only reads.
    private func run(_ sql: String, _ values: [any DatabaseBindable]) throws(DatabaseError) -> Statement {
        let statement = try statement(sql)
        // A change outside a transaction is its own commit: refused, as `write` refuses, once
        // the file's durability failed.
        if transactionDepth == 0, !statement.isReadOnly, let walSync {
            do throws(DatabaseError) { try walSync.refuseAfterFailure() } catch { throw afterDurabilityFailure(error) }
        }
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
        return statement
    }

    /// After a read outside a transaction: waits until every commit noted so far, which the read
    /// may have seen, is on disk (at once when none is pending). Inside `collectingFlushes` the
    /// wait is left to its caller, who awaits it before the read's result is used.
    private func readSettled() throws(DatabaseError) {
        guard transactionDepth == 0, let walSync, !collect(walSync.latestNoted) else { return }
        do throws(DatabaseError) { try walSync.waitUntilDurable(walSync.latestNoted) } catch { throw afterDurabilityFailure(error) }
    }

    /// Runs a script of several statements (migrations). No bound values.
    package func executeScript(_ sql: String) throws(DatabaseError) {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        if code != SQLITE_OK {
            let failure = self.error(code: code, sql: nil)
            sqlite3_free(error)
            throw DatabaseError(extendedCode: failure.extendedCode, sqliteMessage: failure.sqliteMessage,
                                sql: Database.firstLine(of: sql))
        }
        guard transactionDepth == 0, let walSync else { return }
        do throws(DatabaseError) { try walSync.waitUntilDurable(walSync.noteCommit()) } catch { throw afterDurabilityFailure(error) }
    }

    private static func firstLine(of script: String) -> String {
        let line = script.split(separator: "\n").first { !String($0).trimmingWhitespace().isEmpty && !$0.hasPrefix("--") }
        return line.map(String.init) ?? ""
    }

    /// Runs a query, calling `body` with each row. The row is only valid inside `body`.
    package func query(
        _ sql: String, _ values: [any DatabaseBindable] = [], _ body: (Row) throws -> Void
    ) throws {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {
            try body(Row(statement: statement))
        }
        try readSettled()
    }

    /// The first row mapped by `transform`, or nil when there is none.
    package func queryFirst<T>(
        _ sql: String, _ values: [any DatabaseBindable] = [], _ transform: (Row) throws -> T
    ) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        let row = try statement.step() ? transform(Row(statement: statement)) : nil
        try readSettled()
        return row
    }

    /// Every row mapped by `transform`.
    package func queryAll<T>(
        _ sql: String, _ values: [any DatabaseBindable] = [], _ transform: (Row) throws -> T
    ) throws -> [T] {
        var results: [T] = []
        try query(sql, values) { results.append(try transform($0)) }
        return results
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    // MARK: - Transactions

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so two
    /// writers never deadlock on upgrading a read lock. Commits when `body` returns, rolls back
    /// when it throws. SQLite's busy handler waits up to `busyTimeout` for the lock; a few
    /// SQLITE_BUSY cases skip that handler (WAL recovery, a snapshot gone stale), so the whole
    /// transaction is retried until the same timeout is spent. `body` may therefore run more
    /// than once and must only touch the database.
    ///
    /// A write inside another `write` or `read` on this connection is a programmer error (as in
    /// GRDB) and stops the process: joined silently, the inner write's "commit" would not be
    /// one (it commits, or rolls back, with the outer transaction), and inside a read it would
    /// try to upgrade a deferred transaction's lock. Pass the transaction you were given instead.
    package func write<T>(_ body: () throws -> T) throws -> T {
        precondition(transactionDepth == 0, Self.nestedWrite)
        do {
            let (result, ticket) = try commit(body)
            if collect(ticket ?? 0) {
                // The caller of `collectingFlushes` awaits this flush.
            } else if let walSync, let ticket {
                // Outside the gate: the next writer commits while this one waits for the disk.
                try walSync.waitUntilDurable(ticket)
            }
            writeGate?.noteWrite(failure: nil)
            return result
        } catch {
            throw failedWrite(error)
        }
    }

    /// `write`, except that the wait for the commit's flush suspends the caller instead of
    /// blocking its thread. An actor that owns the connection goes on serving its other callers
    /// meanwhile, and their commits join the same flush (`WALSync.durable`): group commit for
    /// the payments of one service. It returns, as `write` does, only once the commit is on
    /// disk. Runs on the caller's executor (`nonisolated(nonsending)`): the connection never
    /// leaves its owner's thread.
    package nonisolated(nonsending) func write<T>(awaitingFlush body: () throws -> T) async throws -> T {
        precondition(transactionDepth == 0, Self.nestedWrite)
        do {
            let (result, ticket) = try commit(body)
            if let walSync, let ticket { try await walSync.durable(ticket) }
            writeGate?.noteWrite(failure: nil)
            return result
        } catch {
            throw failedWrite(error)
        }
    }

    /// The flush every commit made to this file so far needs (by any connection in this
    /// process): awaited, it returns once they are all durable. For an answer that must not
    /// leave before commits made earlier without a wait of their own (processor serve's
    /// write-ahead of an account, `ProcessorService.writeAhead`).
    package var flushOfEverythingCommitted: PendingFlush {
        PendingFlush(walSync: walSync, ticket: walSync?.latestNoted ?? 0)
    }

    /// Runs `body`, whose writes return as soon as they commit, without their flush, and whose
    /// reads outside a transaction return without waiting for the commits they may have seen;
    /// returns with the flush they need, which the caller awaits (`PendingFlush.wait`) before
    /// anything depends on them: before an answer leaves. For an owner whose writes sit deep in
    /// synchronous code (the mock processor's ledger, processor serve's accounts): awaiting the
    /// one flush suspends the owner, so the requests it serves meanwhile share it. When `body`
    /// throws, what it committed before is flushed here before the error goes up.
    package func collectingFlushes<T>(_ body: () throws -> T) throws -> (T, PendingFlush) {
        precondition(collectedTicket == nil, "collectingFlushes inside collectingFlushes on one connection")
        collectedTicket = .some(nil)
        let result: T
        do {
            result = try body()
        } catch {
            let collected = collectedTicket ?? nil
            collectedTicket = nil
            if let walSync, let collected { try walSync.waitUntilDurable(collected) }
            throw error
        }
        let collected = collectedTicket ?? nil
        collectedTicket = nil
        return (result, PendingFlush(walSync: collected == nil ? nil : walSync, ticket: collected ?? 0))
    }

    /// `collectingFlushes`, then the wait for the flush, suspended: what a store's `awaitingFlush`
    /// does on SQLite. It returns once what `body` wrote, and what it read, is durable.
    package nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        let (result, flush) = try collectingFlushes(body)
        try await flush.wait()
        return result
    }

    /// Runs `body` in a transaction and commits it, retrying busy as `write` says; returns the
    /// commit's ticket for the group flush (nil outside WAL mode, where the COMMIT flushed).
    private func commit<T>(_ body: () throws -> T) throws -> (T, UInt64?) {
        // Once a flush failed or a file went missing, nothing more is committed: it would
        // go where a restart does not look, or to a disk whose answer is unknown.
        try walSync?.refuseAfterFailure()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: busyTimeout)
        var pause = Duration.milliseconds(1)
        while true {
            do {
                // This process's other writers queue here first (see WriteGate); the file lock
                // below then only meets writers of other processes.
                guard writeGate?.enter(before: deadline) ?? true else {
                    throw DatabaseError(.busy, sqliteMessage: "another connection of this process kept the database locked", sql: "BEGIN IMMEDIATE")
                }
                defer { writeGate?.leave() }
                let result = try runTransaction(begin: "BEGIN IMMEDIATE", body)
                return (result, walSync?.noteCommit())
            } catch let error as DatabaseError where error.isBusy && clock.now < deadline {
                BlockingWait.announce("SQLite busy back-off")
                Thread.sleep(forTimeInterval: pause.timeInterval)
                pause = min(pause * 2, .milliseconds(50))
                _ = error
            }
        }
    }

    /// A write failed: noted for readiness (a full disk), and a lost WAL salvaged.
    private func failedWrite(_ error: any Error) -> any Error {
        writeGate?.noteWrite(failure: error)
        guard let error = error as? DatabaseError else { return error }
        return afterDurabilityFailure(error)
    }

    /// `error`, after the salvage when it says a file was lost and no connection of this process
    /// has salvaged yet: whichever write meets the loss first (a readiness probe may have found
    /// it) copies the WAL into the database file.
    private func afterDurabilityFailure(_ error: DatabaseError) -> DatabaseError {
        guard error.resultCode == .readOnlyDatabaseMoved, writeGate?.claimSalvage() == true else { return error }
        return salvageAfterWALLoss(error)
    }

    /// When the WAL was deleted from its path, SQLite still reads and writes it through its
    /// open descriptor: a full checkpoint copies every commit in it, those acknowledged before
    /// the deletion included, into the database file and syncs that file, so they survive a
    /// restart. Only when the database file itself is still the one at the path (otherwise
    /// there is nowhere safe to copy to). The write that found the loss still fails: the
    /// answer says what happened to the rest.
    private func salvageAfterWALLoss(_ error: DatabaseError) -> DatabaseError {
        var status = stat()
        guard let file = writeGate?.file, stat(path, &status) == 0, FileIdentity(status) == file else { return error }
        var logFrames: Int32 = 0
        var copiedFrames: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_FULL, &logFrames, &copiedFrames)
        let outcome = code == SQLITE_OK && copiedFrames == logFrames
            ? "the \(copiedFrames) WAL frame(s) committed until then were copied into \(path) and synced"
            : "copying the WAL's frames into \(path) failed (SQLite error \(code), \(copiedFrames) of \(logFrames) frames): commits acknowledged before may be lost at restart; do not restart until the database is backed up with its WAL (cp /proc/<pid>/fd/… of the deleted -wal)"
        return DatabaseError(extendedCode: error.extendedCode, sqliteMessage: "\(error.sqliteMessage); \(outcome)", sql: error.sql)
    }

    /// What a nested write stops the process with.
    package static let nestedWrite = "a write transaction was started inside another transaction on the same connection: pass the open transaction down instead of starting a new one"

    /// Runs `body` in a read transaction: one consistent snapshot for several queries. Inside a
    /// `write` or another `read` it joins that transaction (it reads what the write has done).
    package func read<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        let result = try runTransaction(begin: "BEGIN DEFERRED", body)
        try readSettled()
        return result
    }

    /// The depth goes up once and down once whatever fails (a failed COMMIT once took it down
    /// twice, leaving -1, so the next transaction ran as if outside one), and one handler rolls
    /// back whatever failed: the body or the COMMIT.
    private func runTransaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        try control(begin)
        transactionDepth += 1
        do {
            let result: T
            do {
                defer { transactionDepth -= 1 }
                result = try body()
            }
            try control("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? control("ROLLBACK") }
            throw error
        }
    }

    /// True inside `write` or `read`.
    package var isInTransaction: Bool { transactionDepth > 0 }
}

/// Owns one open `sqlite3` connection and closes it in `deinit`, the only place it is closed.
/// Its init cannot fail: it is made from a handle that opened, so whatever fails afterwards
/// (the owning `Database`'s set-up) just releases it.
private final class SQLiteConnectionHandle {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        sqlite3_close_v2(pointer)
    }
}
