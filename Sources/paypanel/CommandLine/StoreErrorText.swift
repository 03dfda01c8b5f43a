import PayPanel
#if PostgreSQL
import PayPanelPostgres
#endif

/// The payments store's errors as the CLI says them: with the database file the command
/// opened and the command that helps, which the library (knowing neither) leaves out.
enum StoreErrorText {
    /// The CLI's text for a store error, nil for errors that are not the store's. `database`
    /// (how the command's `--db` is shown) is asked for only for a store error.
    static func message(for error: any PayPanelError, database: @autoclosure () -> String) -> String? {
        switch error {
        case let error as PaymentStoreError: return message(for: error, databasePath: database())
        case let error as DatabaseError: return message(for: error, databasePath: database())
        case let error as MigrationError: return message(for: error, databasePath: database())
        default:
            #if PostgreSQL
            if let error = error as? PostgreSQLError { return postgreSQLMessage(for: error, database: database()) }
            #endif
            return nil
        }
    }

    static func message(for error: PaymentStoreError, databasePath: String) -> String {
        switch error.reason {
        case .intentNotFound(let id):
            "no payment intent \(JSONWriter.quoted(id)) in \(databasePath): check the id with 'paypanel payments list'"
        case .corruptRow:
            "\(error.message) (database \(databasePath))"
        default:
            error.message
        }
    }

    /// A SQLite failure of the payments database, with its path and the option that helps.
    static func message(for error: DatabaseError, databasePath path: String) -> String {
        let advice: String
        switch error.primaryResultCode {
        case .busy, .locked: advice = "database \(path) is locked by another process past the busy timeout: retry, or stop the other paypanel process"
        case .readOnly: advice = "database \(path) is read-only: check the file's and its directory's permissions, or point --db at a writable path"
        case .corrupt: advice = "database \(path) is corrupt: restore it from a backup or point --db at a new path"
        case .notADatabase: advice = "\(path) is not a SQLite database: point --db (or PAYPANEL_DB) at a PayPanel database or a new path"
        case .full: advice = "database \(path) could not be written because the disk is full: free some space and retry"
        case .cantOpen: advice = "database \(path) cannot be opened: check that its directory exists and is writable"
        default: advice = "database \(path) failed"
        }
        return "\(advice) \(error.detail)"
    }

    /// A payments database this program cannot use, with its path and the option that helps.
    static func message(for error: MigrationError, databasePath path: String) -> String {
        switch error.reason {
        case .unknownMigration(let identifier):
            "database \(path) was migrated by a newer PayPanel (it has migration \(identifier), which this program does not know): upgrade paypanel, or point --db at another file"
        case .checksumChanged(let identifier):
            "database \(path) applied a different version of migration \(identifier) than this program ships: shipped migrations must never be edited; restore the original file or use a new database"
        case .notAPayPanelDatabase(let set):
            "\(path) is a SQLite database but not a PayPanel \(set == "main" ? "payments" : set) database: point --db (or PAYPANEL_DB) at one, or at a new path"
        case .brokenReferences:
            "database \(path) could not be migrated: \(error.message)"
        }
    }

    #if PostgreSQL
    /// A PostgreSQL failure. One that could not connect at all names the server (libpq's first
    /// line says which host or socket it tried) and what to do about it.
    static func postgreSQLMessage(for error: PostgreSQLError, database: String) -> String {
        guard error.isConnectFailure else { return error.message }
        let reason = error.detail.map { ": \($0)" } ?? ""
        return "cannot connect to PostgreSQL at \(database)\(reason): start the server, or check the host, port, user and database in --db (or $\(CommonOptions.databaseEnvironmentVariable))"
    }
    #endif
}
