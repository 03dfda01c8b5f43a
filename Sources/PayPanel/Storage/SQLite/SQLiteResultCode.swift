/// A SQLite result code, primary or extended, with names for the ones PayPanel acts on (as
/// GRDB's `ResultCode`): `error.resultCode == .constraintUnique` instead of `== 2067`.
public struct SQLiteResultCode: RawRepresentable, Equatable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code of an extended one (its low byte).
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    public var description: String { String(rawValue) }

    // Primary codes.
    public static let ok = SQLiteResultCode(rawValue: 0)             // SQLITE_OK
    public static let error = SQLiteResultCode(rawValue: 1)          // SQLITE_ERROR
    public static let busy = SQLiteResultCode(rawValue: 5)           // SQLITE_BUSY
    public static let locked = SQLiteResultCode(rawValue: 6)         // SQLITE_LOCKED
    public static let readOnly = SQLiteResultCode(rawValue: 8)       // SQLITE_READONLY
    public static let ioErr = SQLiteResultCode(rawValue: 10)         // SQLITE_IOERR
    public static let corrupt = SQLiteResultCode(rawValue: 11)       // SQLITE_CORRUPT
    public static let full = SQLiteResultCode(rawValue: 13)          // SQLITE_FULL
    public static let cantOpen = SQLiteResultCode(rawValue: 14)      // SQLITE_CANTOPEN
    public static let constraint = SQLiteResultCode(rawValue: 19)    // SQLITE_CONSTRAINT
    public static let mismatch = SQLiteResultCode(rawValue: 20)      // SQLITE_MISMATCH
    public static let misuse = SQLiteResultCode(rawValue: 21)        // SQLITE_MISUSE
    public static let range = SQLiteResultCode(rawValue: 25)         // SQLITE_RANGE
    public static let notADatabase = SQLiteResultCode(rawValue: 26)  // SQLITE_NOTADB
    public static let row = SQLiteResultCode(rawValue: 100)          // SQLITE_ROW
    public static let done = SQLiteResultCode(rawValue: 101)         // SQLITE_DONE

    // Extended codes.
    public static let constraintPrimaryKey = SQLiteResultCode(rawValue: 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
    public static let constraintUnique = SQLiteResultCode(rawValue: 2067)      // SQLITE_CONSTRAINT_UNIQUE
    public static let ioErrFsync = SQLiteResultCode(rawValue: 1034)            // SQLITE_IOERR_FSYNC
    /// SQLite's own code for "the database file was moved or deleted while open"; PayPanel
    /// reports its WAL or database file gone from its path with it too.
    public static let readOnlyDatabaseMoved = SQLiteResultCode(rawValue: 1032) // SQLITE_READONLY_DBMOVED
}
