/// A failed SQLite call: the extended result code, SQLite's message, the SQL (never the bound
/// values, which may hold customer data) and the database file.
public struct DatabaseError: PayPanelError, Equatable {
    /// The extended result code, e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE (`resultCode` names it).
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

    /// A failure with the named result code `code`.
    public init(_ code: SQLiteResultCode, sqliteMessage: String, sql: String?, path: String) {
        self.init(extendedCode: code.rawValue, sqliteMessage: sqliteMessage, sql: sql, path: path)
    }

    /// The extended result code, named.
    public var resultCode: SQLiteResultCode { SQLiteResultCode(rawValue: extendedCode) }

    /// The primary result code (the low byte of the extended one), named.
    public var primaryResultCode: SQLiteResultCode { resultCode.primary }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { primaryResultCode.rawValue }

    public var isBusy: Bool { primaryResultCode == .busy || primaryResultCode == .locked }
    public var isConstraintViolation: Bool { primaryResultCode == .constraint }
    public var isUniqueViolation: Bool { resultCode == .constraintUnique || resultCode == .constraintPrimaryKey }

    public var code: String {
        switch primaryResultCode {
        case .busy, .locked: "database_locked"
        case .readOnly: "database_read_only"
        case .corrupt, .notADatabase: "database_unreadable"
        case .full: "database_full"
        case .cantOpen: "database_cannot_open"
        case .constraint: "database_constraint"
        default: "database_error"
        }
    }

    /// One line: what happened to which file, what to do, and the SQLite detail.
    public var message: String {
        let advice: String
        switch primaryResultCode {
        case .busy, .locked: advice = "database \(path) is locked by another process past the busy timeout: retry, or stop the other paypanel process"
        case .readOnly: advice = "database \(path) is read-only: check the file's and its directory's permissions, or point --db at a writable path"
        case .corrupt: advice = "database \(path) is corrupt: restore it from a backup or point --db at a new path"
        case .notADatabase: advice = "\(path) is not a SQLite database: point --db (or PAYPANEL_DB) at a PayPanel database or a new path"
        case .full: advice = "database \(path) could not be written because the disk is full: free some space and retry"
        case .cantOpen: advice = "database \(path) cannot be opened: check that its directory exists and is writable"
        default: advice = "database \(path) failed"
        }
        var text = "\(advice) (SQLite error \(extendedCode): \(sqliteMessage))"
        if let sql { text += " - while executing `\(sql.trimmingWhitespace())`" }
        return text
    }
}
