import Foundation
import MockProcessor
import PayPanel

/// Options several commands share, with one definition and one way of resolving them.
enum CommonOptions {
    static let json = OptionSpec.flag("--json", help: "Print machine-readable JSON instead of text.")
    static let now = OptionSpec.value(
        "--now", "time",
        help: "Use this ISO-8601 time as the current time, e.g. 2026-11-29T12:00:00Z (or $PAYPANEL_NOW). For tests and demos.")
    static let database = OptionSpec.value(
        "--db", "path", help: "The payments database: a SQLite file (default: ./paypanel.sqlite, or $PAYPANEL_DB; created when missing), or postgresql://… for PostgreSQL (a build with --traits PostgreSQL).")

    static let processorDatabase = OptionSpec.value(
        "--processor-db", "path",
        help: "The mock processor's ledger (default: ./paypanel-processor.sqlite, or $PAYPANEL_PROCESSOR_DB).")
    static let latency = OptionSpec.value(
        "--latency", "latency", help: "How long the mock processor takes to answer, e.g. 50ms, 50ms±20ms or 50ms+-20ms (default: 0).")
    static let latencySeed = OptionSpec.value(
        "--latency-seed", "seed", help: "Seeds the latency jitter: the same seed gives the same delays (default: 0).")

    static let databaseEnvironmentVariable = "PAYPANEL_DB"
    static let processorDatabaseEnvironmentVariable = "PAYPANEL_PROCESSOR_DB"
    static let nowEnvironmentVariable = "PAYPANEL_NOW"
    static let defaultDatabasePath = "paypanel.sqlite"
}

extension ParsedArguments {
    /// The clock: `--now`, else `$PAYPANEL_NOW`, else the system clock.
    func clock(environment: [String: String]) throws -> any WallClock {
        let text = spec.option(named: CommonOptions.now.name) != nil ? value(CommonOptions.now.name) : nil
        guard let text = text ?? environment[CommonOptions.nowEnvironmentVariable], !text.isEmpty else {
            return SystemClock()
        }
        do {
            return ManualClock(try Timestamp.parse(text))
        } catch {
            throw UsageError("'--now' (or $\(CommonOptions.nowEnvironmentVariable)): \(error.message)")
        }
    }

    /// The payments database path: `--db`, else `$PAYPANEL_DB`, else `./paypanel.sqlite`.
    func databasePath(environment: [String: String]) -> String {
        if let path = value(CommonOptions.database.name), !path.isEmpty { return path }
        if let path = environment[CommonOptions.databaseEnvironmentVariable], !path.isEmpty { return path }
        return CommonOptions.defaultDatabasePath
    }

    /// The mock processor's ledger path: `--processor-db`, else `$PAYPANEL_PROCESSOR_DB`, else
    /// `./paypanel-processor.sqlite`. Open it with `openProcessorLedger` / `openMockProcessor`.
    func processorDatabasePath(environment: [String: String]) -> String {
        let option = spec.option(named: CommonOptions.processorDatabase.name) != nil ? value(CommonOptions.processorDatabase.name) : nil
        if let path = option, !path.isEmpty { return path }
        if let path = environment[CommonOptions.processorDatabaseEnvironmentVariable], !path.isEmpty { return path }
        return ProcessorLedger.defaultPath
    }
}

extension ParsedArguments {
    /// Opens the payments database named by `--db` / `$PAYPANEL_DB` / the default, migrated.
    func openDatabase(environment: [String: String], clock: any WallClock) throws -> Database {
        try Database.openMigrated(path: databasePath(environment: environment), set: .main, clock: clock)
    }
}

/// A failure the CLI itself detects (an unreadable input file, say), shown as `Error: …`, exit 1.
struct CLIFailure: PayPanelError {
    let code: String
    let message: String
}

enum InputFile {
    /// The bytes of `path`, or of standard input when `path` is `-` (or absent and stdin is piped).
    static func read(_ path: String?, console: Console, what: String) throws -> [UInt8] {
        let path = path ?? "-"
        if path == "-" {
            if console.stdinIsTerminal {
                throw UsageError("no \(what) given: pass a file, or pipe it to standard input")
            }
            return console.readStandardInput()
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIFailure(code: "file_not_found", message: "cannot read the \(what) \(path): no such file; check the path")
        }
        guard !isDirectory.boolValue else {
            throw CLIFailure(code: "file_not_found", message: "cannot read the \(what) \(path): it is a directory, not a file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure(code: "file_unreadable", message: "cannot read the \(what) \(path): permission denied or unreadable")
        }
        return Array(data)
    }
}
