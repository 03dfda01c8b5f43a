/// A SQLite result code, primary or extended, with names for the ones PayPanel acts on (as
/// GRDB's `ResultCode`): `error.resultCode == .constraintUnique` instead of `== 2067`.
package struct SQLiteResultCode: RawRepresentable, Equatable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code of an extended one (its low byte).
    package var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    package var description: String { String(rawValue) }

    // Primary codes.
    package static let ok = SQLiteResultCode(rawValue: 0)             // SQLITE_OK
    package static let error = SQLiteResultCode(rawValue: 1)          // SQLITE_ERROR
    package static let busy = SQLiteResultCode(rawValue: 5)           // SQLITE_BUSY
    package static let locked = SQLiteResultCode(rawValue: 6)         // SQLITE_LOCKED
    package static let readOnly = SQLiteResultCode(rawValue: 8)       // SQLITE_READONLY
    package static let ioErr = SQLiteResultCode(rawValue: 10)         // SQLITE_IOERR
    package static let corrupt = SQLiteResultCode(rawValue: 11)       // SQLITE_CORRUPT
    package static let full = SQLiteResultCode(rawValue: 13)          // SQLITE_FULL
    package static let cantOpen = SQLiteResultCode(rawValue: 14)      // SQLITE_CANTOPEN
    package static let constraint = SQLiteResultCode(rawValue: 19)    // SQLITE_CONSTRAINT
    package static let mismatch = SQLiteResultCode(rawValue: 20)      // SQLITE_MISMATCH
    package static let misuse = SQLiteResultCode(rawValue: 21)        // SQLITE_MISUSE
    package static let range = SQLiteResultCode(rawValue: 25)         // SQLITE_RANGE
    package static let notADatabase = SQLiteResultCode(rawValue: 26)  // SQLITE_NOTADB
    package static let row = SQLiteResultCode(rawValue: 100)          // SQLITE_ROW
    package static let done = SQLiteResultCode(rawValue: 101)         // SQLITE_DONE

    // Extended codes.
    package static let constraintPrimaryKey = SQLiteResultCode(rawValue: 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
    package static let constraintUnique = SQLiteResultCode(rawValue: 2067)      // SQLITE_CONSTRAINT_UNIQUE
    package static let ioErrFsync = SQLiteResultCode(rawValue: 1034)            // SQLITE_IOERR_FSYNC
    /// SQLite's own code for "the database file was moved or deleted while open"; PayPanel
    /// reports its WAL or database file gone from its path with it too.
    package static let readOnlyDatabaseMoved = SQLiteResultCode(rawValue: 1032) // SQLITE_READONLY_DBMOVED
}
