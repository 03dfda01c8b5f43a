/// A failed SQLite call: the extended result code, SQLite's message, the SQL (never the bound
/// values, which may hold customer data) and the database file.
public struct DatabaseError: PayPanelError, Equatable {
    /// The extended result code, e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE.
    public let extendedCode: Int32
    /// SQLite's own message, e.g. "UNIQUE constraint failed: intents.id".
    public let sqliteMessage: String
    /// The statement that failed, without bound values.
    public let sql: String?
    /// The database file, for messages people can act on.
    public let path: String

    public init(extendedCode: Int32, sqliteMessage: String, sql: String?, path: String) {
        self.extendedCode = extendedCode
        self.sqliteMessage = sqliteMessage
        self.sql = sql
        self.path = path
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { extendedCode & 0xFF }

    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED
    public var isConstraintViolation: Bool { primaryCode == 19 }
    public var isUniqueViolation: Bool { extendedCode == 2067 || extendedCode == 1555 }  // UNIQUE, PRIMARY KEY

    public var code: String {
        switch primaryCode {
        case 5, 6: "database_locked"
        case 8: "database_read_only"
        case 11, 26: "database_unreadable"
        case 13: "database_full"
        case 14: "database_cannot_open"
        case 19: "database_constraint"
        default: "database_error"
        }
    }

    /// One line: what happened to which file, what to do, and the SQLite detail.
    public var message: String {
        let advice: String
        switch primaryCode {
        case 5, 6: advice = "database \(path) is locked by another process past the busy timeout: retry, or stop the other paypanel process"
        case 8: advice = "database \(path) is read-only: check the file's and its directory's permissions, or point --db at a writable path"
        case 11: advice = "database \(path) is corrupt: restore it from a backup or point --db at a new path"
        case 26: advice = "\(path) is not a SQLite database: point --db (or PAYPANEL_DB) at a PayPanel database or a new path"
        case 13: advice = "database \(path) could not be written because the disk is full: free some space and retry"
        case 14: advice = "database \(path) cannot be opened: check that its directory exists and is writable"
        default: advice = "database \(path) failed"
        }
        var text = "\(advice) (SQLite error \(extendedCode): \(sqliteMessage))"
        if let sql { text += " - while executing `\(sql.trimmingWhitespace())`" }
        return text
    }
}
