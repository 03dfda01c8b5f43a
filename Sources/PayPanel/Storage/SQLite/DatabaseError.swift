/// A failed SQLite call: the extended result code, SQLite's message, the SQL (never the bound
/// values, which may hold customer data). No file path and no front-end advice: the front end
/// knows which file it opened and which of its options helps (the CLI adds both).
package struct DatabaseError: PayPanelError, Equatable {
    /// The extended result code, e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE (`resultCode` names it).
    package let extendedCode: Int32
    /// SQLite's own message, e.g. "UNIQUE constraint failed: intents.id".
    package let sqliteMessage: String
    /// The statement that failed, without bound values.
    package let sql: String?
    package init(extendedCode: Int32, sqliteMessage: String, sql: String?) {
        self.extendedCode = extendedCode
        self.sqliteMessage = sqliteMessage
        self.sql = sql
    }

    /// A failure with the named result code `code`.
    package init(_ code: SQLiteResultCode, sqliteMessage: String, sql: String?) {
        self.init(extendedCode: code.rawValue, sqliteMessage: sqliteMessage, sql: sql)
    }

    /// The extended result code, named.
    package var resultCode: SQLiteResultCode { SQLiteResultCode(rawValue: extendedCode) }

    /// The primary result code (the low byte of the extended one), named.
    package var primaryResultCode: SQLiteResultCode { resultCode.primary }

    /// The primary result code (the low byte of the extended one).
    package var primaryCode: Int32 { primaryResultCode.rawValue }

    package var isBusy: Bool { primaryResultCode == .busy || primaryResultCode == .locked }
    package var isConstraintViolation: Bool { primaryResultCode == .constraint }
    package var isUniqueViolation: Bool { resultCode == .constraintUnique || resultCode == .constraintPrimaryKey }

    package var code: String {
        if resultCode == .readOnlyDatabaseMoved { return "database_file_missing" }
        return switch primaryResultCode {
        case .busy, .locked: "database_locked"
        case .readOnly: "database_read_only"
        case .corrupt, .notADatabase: "database_unreadable"
        case .full: "database_full"
        case .cantOpen: "database_cannot_open"
        case .constraint: "database_constraint"
        default: "database_error"
        }
    }

    /// One line: what happened, what to do, and the SQLite detail.
    package var message: String {
        if resultCode == .readOnlyDatabaseMoved {
            return "a file of the database was deleted or replaced while it was open, so writes are refused: restart once the files are in place \(detail)"
        }
        let advice: String
        switch primaryResultCode {
        case .busy, .locked: advice = "the database is locked by another process past the busy timeout: retry, or stop the other process"
        case .readOnly: advice = "the database is read-only: check the file's and its directory's permissions"
        case .corrupt: advice = "the database is corrupt: restore it from a backup or use a new file"
        case .notADatabase: advice = "the file is not a SQLite database"
        case .full: advice = "the database could not be written because the disk is full: free some space and retry"
        case .ioErr: advice = "the disk failed a read or write of the database: check the disk and its free space, then restart"
        case .cantOpen: advice = "the database cannot be opened: check that its directory exists and is writable"
        default: advice = "the database failed"
        }
        return "\(advice) \(detail)"
    }

    /// The SQLite detail: `(SQLite error 19: …) - while executing `…``.
    package var detail: String {
        var text = "(SQLite error \(extendedCode): \(sqliteMessage))"
        if let sql { text += " - while executing `\(sql.trimmingWhitespace())`" }
        return text
    }
}

extension DatabaseError: StoreFaultError {
    /// The SQLite failures that are a condition of the file or its disk rather than of the
    /// statement: these make `serve` answer 503 and report itself not ready.
    package var storeFault: StoreFault? {
        if resultCode == .readOnlyDatabaseMoved { return .fileMissing }
        switch primaryResultCode {
        case .busy, .locked: return .busy
        case .full: return .diskFull
        case .readOnly: return .readOnly
        case .corrupt, .notADatabase: return .corrupt
        case .ioErr: return .ioError
        default: return nil
        }
    }
}
