import Foundation
import MockProcessor
import PayPanel

extension ParsedArguments {
    /// Opens the mock processor's ledger named by `--processor-db` / `$PAYPANEL_PROCESSOR_DB` /
    /// the default, migrated. With `mustExist`, a missing file is an error instead of a new ledger
    /// (reading commands must not create files, nor show a typo'd path as an empty ledger).
    func openProcessorLedger(environment: [String: String], clock: any WallClock, mustExist: Bool) throws -> ProcessorLedger {
        let path = processorDatabasePath(environment: environment)
        if mustExist && !FileManager.default.fileExists(atPath: path) {
            throw CLIFailure(
                code: "processor_ledger_not_found",
                message: "no mock-processor ledger at \(path): nothing was sent to the mock processor with this ledger yet; check --processor-db (or $\(CommonOptions.processorDatabaseEnvironmentVariable))")
        }
        do {
            return try ProcessorLedger(path: path, clock: clock)
        } catch {
            throw ProcessorLedgerOpenFailure(path: path, underlying: error)
        }
    }

    /// The mock processor the payment commands talk to: the ledger from `--processor-db`, the
    /// latency from `--latency` / `--latency-seed` (when the command declares them), waiting
    /// through `sleeper` (real sleeping unless the caller runs in virtual time).
    func openMockProcessor(environment: [String: String], clock: any WallClock, sleeper: any Sleeper = TaskSleeper()) throws -> MockProcessor {
        var configuration = MockProcessorConfiguration()
        if spec.option(named: CommonOptions.latency.name) != nil, let text = value(CommonOptions.latency.name) {
            do {
                configuration.latency = try Latency.parse(text)
            } catch {
                throw UsageError("'\(CommonOptions.latency.name)': \(error.message)")
            }
        }
        if spec.option(named: CommonOptions.latencySeed.name) != nil, let text = value(CommonOptions.latencySeed.name) {
            guard let seed = UInt64(text) else {
                throw UsageError("'\(CommonOptions.latencySeed.name)' takes a whole number from 0 to \(UInt64.max), not '\(text)'")
            }
            configuration.latencySeed = seed
        }
        let path = processorDatabasePath(environment: environment)
        do {
            return try MockProcessor(ledgerPath: path, clock: clock, configuration: configuration, sleeper: sleeper)
        } catch {
            throw ProcessorLedgerOpenFailure(path: path, underlying: error)
        }
    }
}

/// A processor ledger file that cannot be used, with advice that names the processor's option
/// (the storage layer's own messages speak of the payments database's `--db`).
struct ProcessorLedgerOpenFailure: PayPanelError {
    let path: String
    let underlying: any Error

    private static let option = "--processor-db (or $\(CommonOptions.processorDatabaseEnvironmentVariable))"

    var code: String { (underlying as? any PayPanelError)?.code ?? "processor_ledger_unusable" }

    var message: String {
        let option = Self.option
        if let migration = underlying as? MigrationError {
            switch migration.reason {
            case .notAPayPanelDatabase:
                return "\(path) is not a mock-processor ledger (another PayPanel database, such as the payments database, or another program's): point \(option) at the processor's ledger or at a new path"
            case .unknownMigration(let identifier):
                return "the processor ledger \(path) was written by a newer paypanel (it has migration \(identifier)): upgrade paypanel, or point \(option) at another file"
            case .checksumChanged(let identifier):
                return "the processor ledger \(path) applied a different version of migration \(identifier) than this program ships: use a new ledger file via \(option)"
            case .brokenReferences:
                return "the processor ledger \(path) could not be migrated: \(migration.message)"
            }
        }
        if let database = underlying as? DatabaseError {
            let detail = "(SQLite error \(database.extendedCode): \(database.sqliteMessage))"
            switch database.primaryResultCode {
            case .notADatabase:
                return "\(path) is not a SQLite database, so not a mock-processor ledger: point \(option) at the processor's ledger or at a new path \(detail)"
            case .cantOpen:
                return "cannot open the processor ledger \(path): check that it is a file (not a directory) and that its directory exists and is writable, or point \(option) elsewhere \(detail)"
            case .readOnly:
                return "the processor ledger \(path) is read-only: check the file's and its directory's permissions \(detail)"
            case .corrupt:
                return "the processor ledger \(path) is corrupt: point \(option) at a new path \(detail)"
            default:
                return "the processor ledger \(path) cannot be used: \(database.message)"
            }
        }
        let reason = (underlying as? any PayPanelError)?.message ?? String(describing: underlying)
        return "the processor ledger \(path) cannot be used: \(reason)"
    }
}
