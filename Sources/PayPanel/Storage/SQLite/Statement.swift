internal import CSQLite
import PayPanelHTTP

/// A prepared statement. Owned by one `Database` and used from its owner's thread only
/// (deliberately not `Sendable`).
package final class Statement {
    /// Reached from outside only through `withHandle`, so the statement cannot be finalized
    /// while SQLite holds its pointer.
    private let handle: OpaquePointer
    package let sql: String
    unowned let database: Database
    /// The text names `journal_mode` (a `PRAGMA journal_mode = …` may leave WAL). Worked out
    /// once, when the statement is prepared, not on every run: statements are cached per
    /// connection, and a case-insensitive search of the text cost 2-3 % of `serve`'s CPU when
    /// `Database.execute` did it for every statement it ran.
    let namesJournalMode: Bool

    init(database: Database, sql: String) throws(DatabaseError) {
        var statement: OpaquePointer?
        let code = database.withHandle { sqlite3_prepare_v3($0, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) }
        guard code == SQLITE_OK, let statement else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
        namesJournalMode = sql.range(of: "journal_mode", options: .caseInsensitive) != nil
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Runs `body` with the `sqlite3_stmt`, which stays alive until `body` returns. What
    /// `body` reads from the current row (text, blobs) must be copied before it returns.
    func withHandle<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(handle) }
    }

    /// Clears previous bindings and binds `values` to parameters 1…n.
    func bind(_ values: [any DatabaseBindable]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw DatabaseError(.range, sqliteMessage: "\(values.count) values bound to \(expected) parameters",
                                sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            var code: Int32 = SQLITE_OK
            switch value.databaseValue {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real): code = sqlite3_bind_double(handle, index, real)
            case .text(var text):
                // The string's own UTF-8 storage (SQLite copies it: transient), not a copy
                // into a new array per bound value.
                text.withUTF8 { utf8 in
                    if let base = utf8.baseAddress, !utf8.isEmpty {
                        base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                            paypanel_sqlite3_bind_text_transient(handle, index, chars, Int32(utf8.count), &code)
                        }
                    } else {
                        // An empty string still needs a valid pointer to be '' rather than NULL.
                        let empty: [CChar] = [0]
                        empty.withUnsafeBufferPointer { paypanel_sqlite3_bind_text_transient(handle, index, $0.baseAddress, 0, &code) }
                    }
                }
            case .blob(let bytes):
                bytes.withUnsafeBytes { buffer in
                    // A zero-length blob still needs a non-null pointer to be a blob, not NULL.
                    let empty: [UInt8] = [0]
                    if let base = buffer.baseAddress {
                        paypanel_sqlite3_bind_blob_transient(handle, index, base, Int32(buffer.count), &code)
                    } else {
                        empty.withUnsafeBytes { paypanel_sqlite3_bind_blob_transient(handle, index, $0.baseAddress, 0, &code) }
                    }
                }
            }
            guard code == SQLITE_OK else { throw database.error(code: code, sql: sql) }
        }
    }

    /// Advances one row: true when a row is available, false when done.
    func step() throws(DatabaseError) -> Bool {
        BlockingWait.announce("SQLite statement")
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// How many virtual-machine steps its runs took so far: the work SQLite did, counted
    /// exactly (what the tests compare instead of timing it).
    var virtualMachineSteps: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 0)) }

    /// True when running it cannot change the database (a SELECT, BEGIN, COMMIT).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    func reset() {
        sqlite3_reset(handle)
    }
}

/// The current row of a statement being stepped. Valid only inside the closure it is given
/// to: the statement moves on (or is reset) as soon as the closure returns.
package struct Row {
    let statement: Statement

    package var columnCount: Int { statement.withHandle { Int(sqlite3_column_count($0)) } }

    package func isNull(_ index: Int) -> Bool {
        statement.withHandle { sqlite3_column_type($0, Int32(index)) } == SQLITE_NULL
    }

    package func int64(_ index: Int) -> Int64 {
        statement.withHandle { sqlite3_column_int64($0, Int32(index)) }
    }

    package func int(_ index: Int) -> Int {
        Int(int64(index))
    }

    package func optionalInt64(_ index: Int) -> Int64? {
        isNull(index) ? nil : int64(index)
    }

    package func bool(_ index: Int) -> Bool {
        int64(index) != 0
    }

    package func double(_ index: Int) -> Double {
        statement.withHandle { sqlite3_column_double($0, Int32(index)) }
    }

    package func string(_ index: Int) -> String {
        statement.withHandle { statement in
            guard let text = sqlite3_column_text(statement, Int32(index)) else { return "" }
            let length = Int(sqlite3_column_bytes(statement, Int32(index)))
            return String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
        }
    }

    package func optionalString(_ index: Int) -> String? {
        isNull(index) ? nil : string(index)
    }

    package func blob(_ index: Int) -> [UInt8] {
        statement.withHandle { statement in
            let length = Int(sqlite3_column_bytes(statement, Int32(index)))
            guard length > 0, let bytes = sqlite3_column_blob(statement, Int32(index)) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: length))
        }
    }

    package func value(_ index: Int) -> DatabaseValue {
        switch statement.withHandle({ sqlite3_column_type($0, Int32(index)) }) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .text(string(index))
        }
    }
}
