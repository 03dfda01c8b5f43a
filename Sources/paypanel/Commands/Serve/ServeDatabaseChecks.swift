import Foundation
import PayPanel

/// What `serve` checks about a SQLite payments file before serving it: a file that fails
/// SQLite's integrity check is refused, never served; and a missing file is created only when
/// nothing says payments were made elsewhere (the in-process mock's ledger holds none).
enum ServeDatabaseChecks {
    /// Runs the checks for the file `--db` names; does nothing for PostgreSQL.
    static func run(arguments: ParsedArguments, environment: [String: String]) throws {
        guard case .sqlite(let path) = try arguments.storeLocation(environment: environment) else { return }
        if FileManager.default.fileExists(atPath: path) {
            try refuseIfMalformed(path)
        } else if try arguments.httpProcessor(environment: environment) == nil {
            // A remote processor (--processor) is not asked: its ledger is behind an API the
            // server reaches only once running (docs/reliability.md, "Store faults").
            try refuseIfLedgerKnowsMore(databasePath: path, ledgerPath: arguments.processorDatabasePath(environment: environment))
        }
    }

    /// `PRAGMA quick_check` (the integrity check without the index-content pass: seconds, not
    /// minutes, on a large file). Read-only, so a refused file is left exactly as it was.
    static func refuseIfMalformed(_ path: String) throws {
        let findings: [String]
        do {
            let database = try Database(path: path, options: Database.Options(readOnly: true, create: false))
            findings = try database.queryAll("PRAGMA quick_check(5)", []) { $0.string(0) }
        } catch let error as DatabaseError where error.storeFault == .corrupt {
            findings = [error.sqliteMessage]
        }
        guard findings != ["ok"] else { return }
        // SQLite's findings span lines ("*** in database main ***\nPage 71: …"): one line here.
        let finding = findings.prefix(2).joined(separator: " ").split(whereSeparator: \.isNewline).joined(separator: " ")
        throw CLIFailure(
            code: "database_corrupt",
            message: "the payments database \(path) fails SQLite's integrity check (PRAGMA quick_check: \(finding.isEmpty ? "no answer" : finding)), so it is not served: restore it from a backup, or move it away and start with a new file")
    }

    /// A new payments database beside a ledger that already holds operations would never learn
    /// of their outcomes (the reconciliation worker asks only about attempts it has): refused,
    /// naming the file that was expected.
    static func refuseIfLedgerKnowsMore(databasePath: String, ledgerPath: String) throws {
        guard FileManager.default.fileExists(atPath: ledgerPath) else { return }
        let ledger = try Database(path: ledgerPath, options: Database.Options(readOnly: true, create: false))
        let hasOperations = try ledger.queryFirst("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'operations'") { $0.int(0) } == 1
        guard hasOperations else { return }
        let count = try ledger.queryFirst("SELECT count(*) FROM operations", []) { $0.int(0) } ?? 0
        guard count > 0 else { return }
        throw CLIFailure(
            code: "database_file_missing",
            message: "the payments database \(databasePath) does not exist, but the processor's ledger \(ledgerPath) holds \(count) operation(s) a new database would never reconcile: start with --db naming the database those payments were made with, or move the ledger away to start afresh")
    }
}
