import Foundation
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// `paypanel soak …` and `paypanel fuzz …` as a user runs them: help, JSON, exit codes,
/// saved and replayed inputs.
@Suite struct ReliabilityCommandTests {
    @Test(arguments: [["soak", "--help"], ["soak", "crash", "--help"], ["soak", "concurrency", "--help"], ["soak", "security", "--help"],
                      ["fuzz", "--help"], ["fuzz", "request", "--help"], ["fuzz", "payload", "--help"], ["fuzz", "token", "--help"]])
    func everyCommandHasHelp(arguments: [String]) throws {
        let run = try CLIRunner.run(arguments, in: try TemporaryDirectory())
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        #expect(run.stdout.contains("USAGE:") || run.stdout.contains("SUBCOMMANDS") || run.stdout.contains("COMMANDS"), "\(run.stdout)")
    }

    @Test func theCrashSoakReportsJSONAndExitsZero() throws {
        let directory = try TemporaryDirectory()
        let run = try CLIRunner.run(["soak", "crash", "--iterations", "10", "--seed", "3", "--dir", "soak", "--json"], in: directory, timeout: 300)
        #expect(run.status == 0, "\(run)")
        let report = try JSONParser().parse(run.stdout)
        #expect(report["result"]?.stringValue == "pass")
        #expect(report["iterations"]?.int64Value == 10)
        #expect(report["faultsArmed"]?.int64Value == 10)
        #expect((report["kills"]?.int64Value ?? 0) >= 8)
        #expect(report["audit"]?["intents"]?.int64Value == 10)
        #expect(FileManager.default.fileExists(atPath: directory.file("soak/paypanel.sqlite")), "--dir keeps the databases")
    }

    @Test func theConcurrencySoakPrintsAReadableSummary() throws {
        let run = try CLIRunner.run(["soak", "concurrency", "--processes", "4", "--iterations", "1"], in: try TemporaryDirectory(), timeout: 300)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("busy errors     0"))
        #expect(run.stdout.contains("result          pass"))
        #expect(run.stderr.isEmpty, "no progress line when standard error is not a terminal")
    }

    @Test func badNumbersAreUsageErrors() throws {
        let directory = try TemporaryDirectory()
        for arguments in [["soak", "crash", "--iterations", "0"], ["fuzz", "token", "--seed", "-1"], ["fuzz", "request", "--time-limit", "x"],
                          ["soak", "concurrency", "--processes", "1"]] {
            let run = try CLIRunner.run(arguments, in: directory)
            #expect(run.status == 64, "\(arguments): \(run)")
            #expect(run.stderr.hasPrefix("Error: "), "\(run.stderr)")
        }
    }

    @Test(arguments: FuzzKind.allCases)
    func aQuickFuzzRunPassesAndReplaysSavedInputsFirst(kind: FuzzKind) throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("saved/\(kind.rawValue)"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory.file("saved/\(kind.rawValue)/old.input"), contents: Data("{\"x\":[1,".utf8))
        // A sanitized build is several times slower: a 2 MB mutant took 10.7 s under ASan against
        // the default 5 s limit.
        let limit = Sanitizers.areActive ? ["--time-limit", "30"] : []
        let run = try CLIRunner.run(
            ["fuzz", kind.rawValue, "--iterations", "120", "--seed", "4", "--save-dir", "saved", "--binary-sample", "5", "--json"] + limit,
            in: directory, timeout: 300)
        #expect(run.status == 0, "\(run)")
        let report = try JSONParser().parse(run.stdout)
        #expect(report["result"]?.stringValue == "pass")
        #expect(report["regressionInputs"]?.int64Value == 1)
        #expect(report["inputsTried"]?.int64Value == 121)
        #expect(report["binarySample"]?.int64Value == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("saved/\(kind.rawValue)")) == ["old.input"], "nothing new saved")
    }

    @Test func aCorpusDirectoryAddsSeeds() throws {
        let run = try CLIRunner.run(
            ["fuzz", "request", "--iterations", "50", "--corpus", RepositoryPaths.fixture("requests"), "--save-dir", "saved", "--binary-sample", "0", "--json"],
            in: try TemporaryDirectory(), timeout: 300)
        #expect(run.status == 0, "\(run)")
        let tried = try JSONParser().parse(run.stdout)["inputsTried"]?.int64Value ?? 0
        #expect(tried > 50, "the corpus files run too")
    }
}
