import Foundation
import PayPanel
import TestSupport
import Testing

/// The crash soak and `bench serve` on PostgreSQL (`--db postgresql://…`): the soak passes with
/// every named fault point killing a request whose store is PostgreSQL, and the benchmark's
/// report has its usual shape plus the server count, with no failed payment across one and two
/// servers. Shapes and verdicts only, never figures. Needs `$PAYPANEL_TEST_POSTGRES_URL` (and a
/// build with the trait); skipped without it unless `$PAYPANEL_TEST_POSTGRES_REQUIRED=1`.
@Suite struct PostgreSQLReliabilityTests {
    #if PostgreSQL
    static func databaseURL() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["PAYPANEL_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        if environment["PAYPANEL_TEST_POSTGRES_REQUIRED"] == "1" {
            throw CLIFailureForTest("PAYPANEL_TEST_POSTGRES_URL is not set but PAYPANEL_TEST_POSTGRES_REQUIRED=1: start a PostgreSQL server (see .ci/run) and export its URL")
        }
        try Test.cancel("PAYPANEL_TEST_POSTGRES_URL is not set: the crash soak and bench serve on PostgreSQL are not tested")
    }

    struct CLIFailureForTest: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func theCrashSoakOnPostgreSQLKillsAtEveryFaultPointAndLosesNothing() async throws {
        let url = try Self.databaseURL()
        let directory = try TemporaryDirectory()
        let iterations = FaultSelector.names.count + 2
        let arguments = ["soak", "crash", "--iterations", String(iterations), "--seed", "4", "--dir", "soak", "--db", url, "--json"]
        // On a thread of its own: the run blocks for a while. Generous timeout: a loaded machine.
        let run = try await onThread { try CLIRunner.run(arguments, in: directory, timeout: 900) }
        #expect(run.status == 0, "\(run)")
        let report = try JSONParser().parse(run.stdout)
        #expect(report["result"] == "pass", "\(report["failures"] ?? .null)")
        #expect(report["audit"]?["intents"]?.int64Value == Int64(iterations))
        let killed = Set(report["faultKills"]?.objectValue?.keys ?? [])
        #expect(killed == Set(FaultSelector.names), "every fault point killed a request: \(killed)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("soak/paypanel.sqlite")), "the payments were not in a SQLite file")
        #expect(FileManager.default.fileExists(atPath: directory.file("soak/paypanel-processor.sqlite")), "the processor's ledger stays a file")
        #expect(!run.stderr.contains("kept for inspection"), "a passing soak drops its schema")
    }

    @Test func benchServeOnPostgreSQLReportsEveryServerAndClientCountWithNoErrors() async throws {
        let url = try Self.databaseURL()
        let directory = try TemporaryDirectory()
        let scratch = directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let arguments = [
            "bench", "serve", "--db", url, "--servers", "1,2", "--payments", "3", "--clients", "1,2", "--idle", "20", "--directory", scratch, "--json",
        ]
        let result = try await onThread { try CLIRunner.run(arguments, in: directory, timeout: 600) }
        #expect(result.status == 0, "\(result)")
        let report = try JSONParser().parse(result.stdout)
        #expect(report.objectValue?.keys == ["store", "runs", "idle", "errors", "serverExitStatus", "targets"])
        #expect(report["store"] == "postgresql")
        #expect(report["errors"] == 0)
        #expect(report["serverExitStatus"] == 0)
        let runs = report["runs"]?.arrayValue ?? []
        #expect(runs.map { $0["servers"] } == [1, 1, 2, 2])
        #expect(runs.map { $0["clients"] } == [1, 2, 1, 2])
        for run in runs {
            #expect(run.objectValue?.keys == ["clients", "servers", "http", "inProcess", "ratio"])
            for side in ["http", "inProcess"] {
                #expect(run[side]?["payments"] == 3, "\(side)")
                #expect(run[side]?["errors"] == 0, "\(side): \(String(describing: run[side]?["firstError"]))")
            }
        }
        #expect(report["idle"]?["connections"] == 20)
        #expect(report["idle"]?["freshRequestServed"] == true)
        let verdict = report["targets"]?["moreServersMorePayments"]
        #expect(verdict == true || verdict == false, "one and two servers were both measured: \(String(describing: verdict))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "the benchmark's files are gone")
    }
    #else
    @Test(arguments: [["soak", "crash", "--iterations", "1"], ["bench", "serve", "--payments", "1", "--idle", "0"]])
    func aBuildWithoutTheTraitSaysHowToBuildOne(command: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(command + ["--db", "postgresql://127.0.0.1/paypanel"], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("Error: this paypanel was built without PostgreSQL support"), "\(result.stderr)")
        #expect(result.stderr.contains("swift build --traits PostgreSQL"))
    }
    #endif

    @Test func theCrashSoakTakesOnlyAPostgreSQLURLForDb() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["soak", "crash", "--iterations", "1", "--db", "sqlite:soak.sqlite"], in: directory)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: '--db' for 'soak crash' is a postgresql:// URL"), "\(result.stderr)")
    }
}
