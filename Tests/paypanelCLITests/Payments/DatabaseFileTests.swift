import Foundation
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// `paypanel db migrate|status`, and every command's answer to a database file it cannot use:
/// one `Error:` line naming the file and what to do, exit 1, the file left as it was.
@Suite struct DatabaseFileTests {
    static let environment = ["PAYPANEL_NOW": "2026-11-29T12:00:00Z"]

    @Test func migrateCreatesTheDatabaseAndStatusReportsIt() throws {
        let directory = try TemporaryDirectory()
        let before = try CLIRunner.run(["db", "status", "--json"], in: directory)
        #expect(before.status == 0)
        let pending = try JSONParser().parse(before.stdout)
        #expect(pending["exists"] == false && pending["applied"] == [])
        #expect(pending["pending"]?.arrayValue?.compactMap { $0["identifier"]?.stringValue }.prefix(2) == ["0001_init", "0002_payments"])
        #expect(!FileManager.default.fileExists(atPath: directory.file("paypanel.sqlite")), "status must not create the database")

        let migrated = try CLIRunner.run(["db", "migrate"], in: directory, environment: Self.environment)
        #expect(migrated.status == 0)
        #expect(migrated.stdout.hasPrefix("Applied 0001_init, 0002_payments"))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("paypanel.sqlite"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try CLIRunner.run(["db", "migrate", "--json"], in: directory, environment: Self.environment)
        let report = try JSONParser().parse(again.stdout)
        #expect(report["applied"] == [])
        #expect(report["migrations"]?.arrayValue?.first?["appliedAt"] == "2026-11-29T12:00:00Z")

        let status = try CLIRunner.run(["db", "status"], in: directory, environment: ["PAYPANEL_DB": "paypanel.sqlite"])
        let row = status.stdoutLines.first { $0.hasPrefix("  0002_payments ") }?.split(separator: " ", omittingEmptySubsequences: true)
        #expect(row == ["0002_payments", Substring(MigrationSet.main.migrations[1].checksum), "2026-11-29T12:00:00Z"], "\(status)")
        #expect(status.stdout.contains("Pending: none"))
    }

    /// Runs `payments create` on `name` and expects a one-line refusal mentioning `reason`,
    /// with the file's bytes unchanged.
    func expectRefusal(
        _ directory: TemporaryDirectory, _ name: String, reason: String, runner: ([String]) throws -> RunResult
    ) throws {
        let path = directory.file(name)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try runner(["payments", "create", "--amount", "10", "--db", path])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(path) && result.stderr.contains(reason), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the refused file was modified")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }

    func plainRunner(_ directory: TemporaryDirectory) -> ([String]) throws -> RunResult {
        { RunResult(try CLIRunner.run($0, in: directory)) }
    }

    /// A migrated database, checkpointed so that the main file holds everything.
    func migratedDatabase(_ directory: TemporaryDirectory, _ name: String, _ change: (Database) throws -> Void = { _ in }) throws {
        let database = try Database.openMigrated(path: directory.file(name))
        try change(database)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        try directory.write("notes.txt", "these are my notes, not a database\n")
        try expectRefusal(directory, "notes.txt", reason: "is not a SQLite database", runner: plainRunner(directory))
    }

    @Test func aDatabaseFromANewerPayPanelIsRefused() throws {
        let directory = try TemporaryDirectory()
        try migratedDatabase(directory, "newer.sqlite") {
            try $0.execute("INSERT INTO schema_migrations (identifier, checksum, applied_at) VALUES ('0099_future', 'abc', 0)")
        }
        try expectRefusal(directory, "newer.sqlite", reason: "migrated by a newer PayPanel", runner: plainRunner(directory))
    }

    @Test func aDatabaseWithAnEditedMigrationIsRefused() throws {
        let directory = try TemporaryDirectory()
        try migratedDatabase(directory, "edited.sqlite") {
            try $0.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE identifier = '0001_init'")
        }
        try expectRefusal(directory, "edited.sqlite", reason: "shipped migrations must never be edited", runner: plainRunner(directory))
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        do {
            let database = try Database(path: directory.file("shop.sqlite"), options: .init(writeAheadLog: false))
            try database.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
        }
        try expectRefusal(directory, "shop.sqlite", reason: "not a PayPanel payments database", runner: plainRunner(directory))
    }

    /// Read-only for the process: root ignores file permissions, so as root the command runs as
    /// `nobody` (setpriv); otherwise the file is simply made read-only.
    @Test func aReadOnlyDatabaseIsRefused() throws {
        let directory = try TemporaryDirectory()
        try migratedDatabase(directory, "readonly.sqlite")
        let path = directory.file("readonly.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let runner: ([String]) throws -> RunResult
        if geteuid() == 0 {
            runner = { arguments in
                try RunResult.launch(arguments, in: directory, through: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
            }
        } else {
            runner = plainRunner(directory)
        }
        try expectRefusal(directory, "readonly.sqlite", reason: "read-only", runner: runner)
    }

    @Test func aDatabaseLockedPastTheTimeoutIsRefusedAndReadsStillWork() throws {
        let directory = try TemporaryDirectory()
        try migratedDatabase(directory, "busy.sqlite")
        let path = directory.file("busy.sqlite")
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        let started = Date()
        let result = try CLIRunner.run(["payments", "create", "--amount", "10", "--db", path], in: directory)
        #expect(Date().timeIntervalSince(started) >= 4.5, "gave up before the busy timeout")
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("database \(path) is locked by another process past the busy timeout"))
        let list = try CLIRunner.run(["payments", "list", "--db", path], in: directory)
        #expect(list.status == 0, "a reader is not blocked by a writer in WAL mode: \(list)")
        try holder.execute("ROLLBACK")
        #expect(try holder.queryFirst("SELECT count(*) FROM intents") { $0.int(0) } == 0)
    }
}

/// What a run printed and returned, whether it went through `CLIRunner` or a launcher.
struct RunResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    init(_ result: CLIResult) {
        status = result.status
        stdout = result.stdout
        stderr = result.stderr
    }

    init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

    /// Runs the built binary through a launcher (`setpriv` to drop root's privileges).
    static func launch(_ arguments: [String], in directory: TemporaryDirectory, through launcher: [String]) throws -> RunResult {
        // The output files go to a scratch directory: the test looks at what is in its own.
        let scratch = try TemporaryDirectory("paypanel-launch")
        let result = try ChildProcess.start(
            launcher[0], Array(launcher.dropFirst()) + [CLIRunner.binary.path(percentEncoded: false)] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TERM": "dumb"], directory: scratch.path, workingDirectory: directory.path
        ).wait(timeout: .seconds(60), poll: .milliseconds(5))
        return RunResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}
