#if PostgreSQL
import PayPanel

/// A PostgreSQL failure: the SQLSTATE, the name of the statement that failed and, where the
/// server names them, the table and constraint. Never a bound value: the server's own message
/// can quote one (`invalid input syntax for type bigint: "…"`, a unique key's DETAIL), so only
/// messages this program wrote itself (its triggers' `RAISE EXCEPTION`) are kept.
public struct PostgreSQLError: PayPanelError, RetryableStoreError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The server answered the statement with an error.
        case server
        /// The connection could not be opened, or broke while a statement ran.
        case connection
        /// The connection broke while COMMIT was under way and the outcome could not be read
        /// back: the transaction may or may not have committed.
        case commitOutcomeUnknown
        /// A value this program refused to send (PostgreSQL text cannot hold a NUL character).
        case unsendableValue
        /// A URL or schema name this program cannot use.
        case configuration
    }

    public let kind: Kind
    /// The five-character SQLSTATE (`40001`, `23505`…), when the server sent one.
    public let sqlState: String?
    /// The name of the statement (`intents.update`, `commit`…).
    public let statement: String
    public let table: String?
    public let constraint: String?
    /// Only text this program wrote: a trigger's message, or a description of the failure.
    public let detail: String?

    public init(
        kind: Kind, sqlState: String? = nil, statement: String, table: String? = nil, constraint: String? = nil,
        detail: String? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        self.statement = statement
        self.table = table
        self.constraint = constraint
        self.detail = detail
    }

    /// Serialization failure (40001) or deadlock (40P01): the whole transaction may be run
    /// again. A lost COMMIT is not one: its outcome is read back, never guessed.
    public var isRetryableConflict: Bool {
        kind == .server && (sqlState == "40001" || sqlState == "40P01")
    }

    /// No connection could be opened at all: the server is not running or not reachable, or it
    /// refused the login or the database. (A connection lost while a statement ran is not one.)
    public var isConnectFailure: Bool {
        kind == .connection && statement == PostgreSQLConnection.connectStatement
    }

    /// The connection broke (class 08, or libpq lost the socket).
    public var isConnectionLost: Bool {
        kind == .connection || (sqlState?.hasPrefix("08") ?? false) || sqlState == "57P01"
    }

    public var code: String {
        switch kind {
        case .server: isRetryableConflict ? "database_busy" : "database_error"
        case .connection: "database_unreachable"
        case .commitOutcomeUnknown: "database_commit_outcome_unknown"
        case .unsendableValue: "database_value_refused"
        case .configuration: "database_configuration"
        }
    }

    public var message: String {
        var where_ = "statement \(statement)"
        if let table { where_ += ", table \(table)" }
        if let constraint { where_ += ", constraint \(constraint)" }
        let state = sqlState.map { "SQLSTATE \($0)" } ?? "no SQLSTATE"
        switch kind {
        case .server:
            let what = detail ?? Self.describe(sqlState)
            let advice = isRetryableConflict
                ? "another transaction won a race for the same rows; try again"
                : "check the database's log for this SQLSTATE"
            return "PostgreSQL refused \(where_) (\(state)): \(what): \(advice)"
        case .connection:
            return "cannot reach PostgreSQL (\(where_), \(state))\(detail.map { ": \($0)" } ?? ""): check that the server runs and the URL's host, port, user and database are right"
        case .commitOutcomeUnknown:
            return "the connection to PostgreSQL broke during COMMIT and the outcome could not be read back: the change may or may not be stored; read the intent again before deciding anything"
        case .unsendableValue:
            return "refused to send \(where_) to PostgreSQL: \(detail ?? "a value cannot be stored")"
        case .configuration:
            return detail ?? "the PostgreSQL configuration is not usable"
        }
    }

    /// A short description of the SQLSTATE classes this program meets.
    static func describe(_ sqlState: String?) -> String {
        guard let sqlState else { return "the statement failed" }
        switch sqlState {
        case "23505": return "a unique key already exists"
        case "23514": return "a check constraint refused the row"
        case "23503": return "a referenced row is missing"
        case "23502": return "a required column is empty"
        case "40001": return "serialization failure"
        case "40P01": return "deadlock detected"
        case "42P01": return "a table is missing (is the schema migrated?)"
        case "22021": return "a text value is not valid UTF-8"
        case "57014": return "the statement was canceled"
        default:
            if sqlState.hasPrefix("22") { return "a value has the wrong form" }
            if sqlState.hasPrefix("53") { return "the server is out of resources" }
            if sqlState.hasPrefix("28") { return "authentication failed" }
            return "the statement failed"
        }
    }
}

/// The database's condition behind a failure, so the front ends answer "unavailable, retry"
/// (503) with the cause instead of an internal error: a server that is stopped, restarting or
/// failing over (no connection, a broken one, an administrator's shutdown), a standby that
/// took over read-only, a full disk. A refusal of the statement itself (a constraint, bad
/// input) is not one.
extension PostgreSQLError: StoreFaultError {
    package var storeFault: StoreFault? {
        switch kind {
        case .connection, .commitOutcomeUnknown: return .unreachable
        case .unsendableValue, .configuration: return nil
        case .server: break
        }
        guard let sqlState else { return nil }
        switch sqlState {
        // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down).
        case "57P01", "57P02", "57P03": return .unreachable
        // read_only_sql_transaction: after a failover the connection reached a standby.
        case "25006": return .readOnly
        case "53100": return .diskFull
        case "58030": return .ioError
        // data_corrupted, index_corrupted.
        case "XX001", "XX002": return .corrupt
        default: return sqlState.hasPrefix("08") ? .unreachable : nil
        }
    }
}
#endif
