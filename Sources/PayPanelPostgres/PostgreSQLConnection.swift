#if PostgreSQL
internal import CLibPQ
import Foundation
import PayPanel
import PayPanelHTTP
import Synchronization

/// A named SQL statement: prepared once per connection under its name (`PQprepare`), then run
/// with parameters only (`PQexecPrepared`). The name is what errors report.
struct PostgreSQLStatement: Sendable {
    let name: String
    let sql: String

    init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// The rows of one statement's result, copied out of libpq in text format.
struct PostgreSQLResult {
    let rows: [PostgreSQLRow]
    /// Rows inserted, updated or deleted (`PQcmdTuples`).
    let affectedRows: Int
}

/// One row in PostgreSQL's text output format.
struct PostgreSQLRow: StoredRow {
    let values: [String?]

    func isNull(_ index: Int) -> Bool { values[index] == nil }
    func optionalString(_ index: Int) -> String? { values[index] }
    func string(_ index: Int) -> String { values[index] ?? "" }
    func optionalInt64(_ index: Int) -> Int64? { values[index].flatMap { Int64($0) } }
    func int64(_ index: Int) -> Int64 { optionalInt64(index) ?? 0 }
    func int(_ index: Int) -> Int { Int(int64(index)) }
    func bool(_ index: Int) -> Bool {
        switch values[index] { case "1", "t", "true": true; default: false }
    }

    /// `bytea` in the hex output format (`\x0a1b…`).
    func blob(_ index: Int) -> [UInt8] {
        guard let text = values[index], text.hasPrefix("\\x") else { return [] }
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in text.utf8.dropFirst(2) {
            guard let nibble = Self.nibble(scalar) else { return [] }
            if let h = high { bytes.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

/// How many times connections waited for the server's answer after sending: one
/// `PQexec`/`PQexecPrepared`/`PQprepare` is one, and so is a pipeline of several statements
/// ended by one sync and read together. Shared by the connections of one pool, so a store
/// (or a benchmark) can read the total its work cost; `bench lifecycle --db` prints it per
/// payment. A count, never a timing: it does not depend on the machine or the build.
package final class PostgreSQLRoundTrips: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// Round trips so far.
    package var total: Int { count.load(ordering: .relaxed) }

    func add(_ roundTrips: Int) {
        count.wrappingAdd(roundTrips, ordering: .relaxed)
    }
}

/// One libpq connection (`PGconn`), with the statements prepared on it.
///
/// Made only by `open`, which hands the object a handle that is already connected: the
/// object's one `init` cannot fail, and its `deinit` is the only place that calls `PQfinish` on
/// a handle it owns. A connection attempt that fails frees its own local handle before any
/// object exists, so no path can finish one handle twice (docs/architecture.md, "Who frees C
/// handles").
///
/// `@unchecked Sendable` because a `PostgreSQLConnectionPool` hands it to one borrower at a
/// time: only that borrower uses it until it gives it back, so the handle is never used from
/// two threads at once. It is never shared while borrowed.
final class PostgreSQLConnection: @unchecked Sendable {
    /// The statement name a failed connection attempt reports (`PostgreSQLError.statement`).
    static let connectStatement = "connect"

    private let handle: OpaquePointer
    /// Where this connection counts its round trips (its pool's counter, shared).
    let roundTrips: PostgreSQLRoundTrips
    private var prepared: Set<String> = []
    /// Set once a statement failed for want of a connection: never trusted again.
    private var lost = false

    /// Connects with `conninfo` (a `postgresql://` URL or `key=value` pairs) and sets the
    /// session's `search_path` to `schema`.
    static func open(
        conninfo: String, schema: String, roundTrips: PostgreSQLRoundTrips = PostgreSQLRoundTrips()
    ) throws(PostgreSQLError) -> PostgreSQLConnection {
        BlockingWait.announce("PostgreSQL connect")
        guard let handle = PQconnectdb(conninfo) else {
            throw PostgreSQLError(kind: .connection, statement: connectStatement, detail: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            // libpq's message names the host and the problem, never a password. Read it before
            // the handle goes: it lives inside the handle.
            let reason = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            // No object owns this handle yet, so this is its one and only PQfinish.
            PQfinish(handle)
            throw PostgreSQLError(kind: .connection, statement: connectStatement, detail: firstLine(reason))
        }
        let connection = PostgreSQLConnection(taking: handle, roundTrips: roundTrips)
        // From here the object owns the handle: if the session set-up below throws, the object
        // is released and its deinit finishes the handle, once.
        // Parameters only, even here: set_config takes the schema as a value.
        do {
            try connection.execute(PostgreSQLStatement("session.search_path", "SELECT pg_catalog.set_config('search_path', $1, false)"), [schema])
        } catch let error as PostgreSQLError {
            throw error
        } catch {
            // Nothing is queued on a connection just opened, so no check can have thrown.
            throw PostgreSQLError(kind: .connection, statement: "session.search_path", detail: "the session could not be set up")
        }
        return connection
    }

    /// Takes ownership of `handle`, a connection whose status is `CONNECTION_OK`.
    private init(taking handle: OpaquePointer, roundTrips: PostgreSQLRoundTrips) {
        self.handle = handle
        self.roundTrips = roundTrips
        // The library never prints: libpq's default notice processor writes NOTICEs (`drop
        // cascades to …`) to standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        PQfinish(handle)
    }

    /// True once libpq has lost the server: the pool drops such a connection.
    var isBroken: Bool { lost || PQstatus(handle) != CONNECTION_OK }

    /// The server's transaction status: idle, in a transaction, in a failed one.
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Runs `statement` with `values` (text format; `nil` is NULL). Statements queued with
    /// `deferStatement` leave first, in the same pipeline; so does the statement's PREPARE the
    /// first time this connection runs it. Either way one round trip.
    @discardableResult
    func execute(_ statement: PostgreSQLStatement, _ values: [any DatabaseBindable]) throws -> PostgreSQLResult {
        BlockingWait.announce("PostgreSQL statement")
        let texts = try values.enumerated().map { index, value throws(PostgreSQLError) in
            try Self.text(value.databaseValue, parameter: index + 1, statement: statement.name)
        }
        guard deferred.isEmpty, prepared.contains(statement.name) else {
            return try runPipeline(Deferred(statement: statement, sql: statement.sql, name: statement.name, texts: texts, check: nil))
        }
        let result = Self.withParameters(texts) { count, pointers in
            PQexecPrepared(handle, statement.name, count, pointers, nil, nil, 0)
        }
        waited()
        return try collect(result, statement: statement.name)
    }

    /// Runs SQL text with no parameters through the simple query protocol: transaction control
    /// and the embedded migration scripts (several statements), never text built from input.
    /// With several statements, the result is the last one's.
    @discardableResult
    func executeScript(_ sql: String, name: String) throws(PostgreSQLError) -> PostgreSQLResult {
        // Queued statements would run after this text, out of order: the store sends them first.
        precondition(deferred.isEmpty, "a script with statements still queued")
        BlockingWait.announce("PostgreSQL script")
        let result = PQexec(handle, sql)
        waited()
        return try collect(result, statement: name)
    }

    /// Sends `sql` (simple query protocol) without reading the answer; `finishSent` reads it.
    func send(_ sql: String, name: String) throws(PostgreSQLError) {
        precondition(deferred.isEmpty, "a statement sent with statements still queued")
        BlockingWait.announce("PostgreSQL statement")
        guard PQsendQuery(handle, sql) == 1 else {
            lost = true
            throw PostgreSQLError(kind: .connection, statement: name, detail: "the connection was lost")
        }
    }

    /// Reads every result of what `send` sent; throws the first failure.
    func finishSent(name: String) throws(PostgreSQLError) {
        var failure: PostgreSQLError?
        var sawResult = false
        waited()
        while let result = PQgetResult(handle) {
            sawResult = true
            do { _ = try collect(result, statement: name) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
        if !sawResult || isBroken {
            lost = true
            throw PostgreSQLError(kind: .connection, statement: name, detail: "the connection was lost")
        }
    }

    /// One more wait for the server's answer.
    private func waited() {
        roundTrips.add(1)
    }

    // MARK: - Deferred statements, sent in pipeline mode

    /// A statement held back until the next one whose answer is needed, or COMMIT: it leaves
    /// with that one in the same pipeline, so its answer costs no wait of its own.
    private struct Deferred {
        /// Prepared statements go by name; nil sends `sql` unnamed (BEGIN, COMMIT).
        let statement: PostgreSQLStatement?
        let sql: String
        let name: String
        let texts: [String?]
        /// Looks at the statement's result when it is read: throws what an immediate check of
        /// the same answer would have thrown (a row count, a version).
        let check: ((PostgreSQLResult) throws -> Void)?
    }

    private var deferred: [Deferred] = []
    /// Set by `deferBegin`: the transaction's first statement is never held back. It leaves at
    /// once with the BEGIN and the reading of the transaction id, so the id is known before
    /// anything else of the transaction is sent, and a COMMIT lost later can always be read back.
    private var sendsFirstStatement = false

    /// Whether a waiting statement's answer must still be checked: then COMMIT may not leave
    /// with it, since a failed check must still roll the transaction back.
    var deferredNeedChecking: Bool { deferred.contains { $0.check != nil } }
    /// Whether the server answered the BEGIN that `deferBegin` queued: until it did, nothing of
    /// the transaction happened on the server.
    private(set) var beginAnswered = false
    /// The transaction id read with the BEGIN (`deferBegin(readingTransactionID: true)`), once
    /// its answer was read.
    private(set) var transactionID: String?

    static let currentTransactionID = PostgreSQLStatement("tx.current_id", "SELECT pg_catalog.pg_current_xact_id()::text")

    /// Queues `begin` (one transaction-control statement) and, for a write, the reading of its
    /// transaction id: both leave with the transaction's first statement.
    func deferBegin(_ begin: String, name: String, readingTransactionID: Bool) throws {
        beginAnswered = false
        transactionID = nil
        deferred.append(Deferred(statement: nil, sql: begin, name: name, texts: []) { [unowned self] _ in beginAnswered = true })
        if readingTransactionID {
            try deferStatement(Self.currentTransactionID, []) { [unowned self] result in
                transactionID = result.rows.first?.optionalString(0)
            }
        }
        sendsFirstStatement = true
    }

    /// Queues `statement` with `values` (converted now, so a value that cannot be sent is
    /// refused at once, as `execute` refuses it). `check` sees its result when it is read.
    func deferStatement(
        _ statement: PostgreSQLStatement, _ values: [any DatabaseBindable], check: ((PostgreSQLResult) throws -> Void)? = nil
    ) throws {
        let texts = try values.enumerated().map { index, value throws(PostgreSQLError) in
            try Self.text(value.databaseValue, parameter: index + 1, statement: statement.name)
        }
        deferred.append(Deferred(statement: statement, sql: statement.sql, name: statement.name, texts: texts, check: check))
        if sendsFirstStatement { _ = try runPipeline(nil) }
    }

    /// Forgets what waits (the transaction is being rolled back: it was never sent).
    func discardDeferred() {
        deferred.removeAll()
        sendsFirstStatement = false
    }

    /// Sends what waits, alone, in one round trip.
    func flushDeferred() throws {
        guard !deferred.isEmpty else { return }
        _ = try runPipeline(nil)
    }

    /// Sends what waits and then `sql` (one statement, no parameters: COMMIT) in one pipeline.
    func finishDeferred(with sql: String, name: String) throws {
        _ = try runPipeline(Deferred(statement: nil, sql: sql, name: name, texts: [], check: nil))
    }

    /// Sends every waiting statement and then `last` in pipeline mode, with one sync, and reads
    /// all their answers in order: one round trip. Statements not yet prepared on this
    /// connection are prepared in the same pipeline, just before their first use.
    ///
    /// After a failure the server skips the rest up to the sync (`PGRES_PIPELINE_ABORTED`), so
    /// the error thrown is the first real one: a statement's, or a check's. A COMMIT in the
    /// pipeline is then skipped too, and the transaction stays open to be rolled back.
    ///
    /// The connection stays in blocking mode: a pipeline is one transition's statements (a few
    /// kilobytes), far below what would fill the socket buffers while the answers go unread.
    private func runPipeline(_ last: Deferred?) throws -> PostgreSQLResult {
        let items = deferred + (last.map { [$0] } ?? [])
        deferred.removeAll()
        sendsFirstStatement = false
        BlockingWait.announce("PostgreSQL pipeline")
        guard PQenterPipelineMode(handle) == 1 else { throw lostConnection(items.first?.name ?? "pipeline") }
        // What the pipeline answers, in order: a prepare, or an item (by index).
        enum Slot { case prepare(String), item(Int) }
        var slots: [Slot] = []
        var preparing: Set<String> = []
        for (index, item) in items.enumerated() {
            var sent = true
            if let statement = item.statement {
                if !prepared.contains(statement.name), !preparing.contains(statement.name) {
                    sent = PQsendPrepare(handle, statement.name, statement.sql, 0, nil) == 1
                    preparing.insert(statement.name)
                    slots.append(.prepare(statement.name))
                }
                sent = sent && Self.withParameters(item.texts) { count, pointers in
                    PQsendQueryPrepared(handle, statement.name, count, pointers, nil, nil, 0)
                } == 1
            } else {
                sent = PQsendQueryParams(handle, item.sql, 0, nil, nil, nil, nil, 0) == 1
            }
            guard sent else { throw lostConnection(item.name) }
            slots.append(.item(index))
        }
        guard PQpipelineSync(handle) == 1 else { throw lostConnection(items.first?.name ?? "pipeline") }
        waited()
        var failure: (any Error)?
        var lastResult = PostgreSQLResult(rows: [], affectedRows: 0)
        for slot in slots {
            let name: String
            switch slot {
            case .prepare(let statement): name = statement
            case .item(let index): name = items[index].name
            }
            // Each command's answer is one result, then NULL.
            guard let result = PQgetResult(handle) else {
                lost = true
                throw failure ?? lostConnection(name)
            }
            while let extra = PQgetResult(handle) { PQclear(extra) }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                // Skipped because an earlier command failed: that one's error is the one to report.
                PQclear(result)
                continue
            }
            do {
                let collected = try collect(result, statement: name)
                switch slot {
                case .prepare(let statement): prepared.insert(statement)
                case .item(let index):
                    try items[index].check?(collected)
                    lastResult = collected
                }
            } catch {
                failure = failure ?? error
                // Nothing more can be read from a connection that is gone.
                if lost { throw failure! }
            }
        }
        // The sync's own answer closes the pipeline.
        guard let sync = PQgetResult(handle) else { lost = true; throw failure ?? lostConnection("pipeline") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { lost = true; throw failure ?? lostConnection("pipeline") }
        if let failure { throw failure }
        return lastResult
    }

    private func lostConnection(_ name: String) -> PostgreSQLError {
        lost = true
        return PostgreSQLError(kind: .connection, statement: name, detail: "the connection was lost")
    }

    /// Calls `body` with the parameter count and C strings of `texts` (NULL for nil), freed after.
    private static func withParameters<R>(_ texts: [String?], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let cStrings: [UnsafeMutablePointer<CChar>?] = texts.map { $0.flatMap { strdup($0) } }
        defer { cStrings.forEach { free($0) } }
        return cStrings.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) { pointers in
                body(Int32(buffer.count), buffer.isEmpty ? nil : pointers)
            }
        }
    }

    /// For tests: shuts the socket down under libpq, as a network failure would.
    func breakSocket() {
        lost = true
        let descriptor = PQsocket(handle)
        if descriptor >= 0 { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func collect(_ result: OpaquePointer?, statement: String) throws(PostgreSQLError) -> PostgreSQLResult {
        defer { if let result { PQclear(result) } }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY else {
            throw error(result, statement: statement)
        }
        guard let result else { return PostgreSQLResult(rows: [], affectedRows: 0) }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var rows: [PostgreSQLRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(PostgreSQLRow(values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgreSQLResult(rows: rows, affectedRows: affected)
    }

    private func check(_ result: OpaquePointer?, statement: String, expecting: ExecStatusType) throws(PostgreSQLError) {
        guard let result, PQresultStatus(result) == expecting else {
            let failure = error(result, statement: statement)
            if let result { PQclear(result) }
            throw failure
        }
    }

    /// The error of a failed result: SQLSTATE, table, constraint; the message only when it is
    /// one of this program's own triggers (SQLSTATE P0001), which never quote values.
    private func error(_ result: OpaquePointer?, statement: String) -> PostgreSQLError {
        guard let result, let state = paypanel_pq_sqlstate(result).map({ String(cString: $0) }) else {
            lost = true
            return PostgreSQLError(kind: .connection, statement: statement, detail: "the connection was lost")
        }
        let table = paypanel_pq_table_name(result).map { String(cString: $0) }
        let constraint = paypanel_pq_constraint_name(result).map { String(cString: $0) }
        let ownMessage = state == "P0001" ? paypanel_pq_primary_message(result).map { String(cString: $0) } : nil
        let kind: PostgreSQLError.Kind = state.hasPrefix("08") ? .connection : .server
        if kind == .connection || state == "57P01" { lost = true }
        return PostgreSQLError(kind: kind, sqlState: state, statement: statement, table: table, constraint: constraint, detail: ownMessage)
    }

    private static func text(_ value: DatabaseValue, parameter: Int, statement: String) throws(PostgreSQLError) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let text):
            // A C string ends at NUL: sending it would silently cut the value short.
            guard !text.utf8.contains(0) else {
                throw PostgreSQLError(
                    kind: .unsendableValue, statement: statement,
                    detail: "parameter \(parameter) contains a NUL character, which PostgreSQL text cannot hold")
            }
            return text
        case .blob(let bytes):
            let digits = Array("0123456789abcdef".utf8)
            var hex: [UInt8] = Array("\\x".utf8)
            hex.reserveCapacity(2 + bytes.count * 2)
            for byte in bytes { hex.append(digits[Int(byte >> 4)]); hex.append(digits[Int(byte & 0x0F)]) }
            return String(decoding: hex, as: UTF8.self)
        }
    }

    private static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", omittingEmptySubsequences: true).first ?? "")
    }
}
#endif
