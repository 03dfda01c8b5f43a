import Foundation
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// `paypanel bench lifecycle`: a smoke test of the command's shape (three payments in a debug
/// build). It never checks the figures: a benchmark is not a timed test.
@Suite struct BenchLifecycleCommandTests {
    @Test func jsonHasTheDocumentedKeysAndTheTemporaryFilesAreRemoved() throws {
        let directory = try TemporaryDirectory()
        let scratch = directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let result = try CLIRunner.run(["bench", "lifecycle", "--count", "3", "--directory", scratch, "--json"], in: directory)
        #expect(result.status == 0, "\(result)")
        let report = try JSONParser().parse(result.stdout)
        #expect(report.objectValue?.keys == ["count", "paymentsPerSecond", "baselinePerSecond", "ratio"])
        #expect(report["count"] == 3)
        for key in ["paymentsPerSecond", "baselinePerSecond", "ratio"] {
            let literal = report[key]?.numberValue?.literal ?? ""
            #expect((Double(literal) ?? 0) > 0, "\(key) = \(literal)")
        }
        // Not a terminal: no progress, only the debug build's note (if any).
        #expect(result.stderr.isEmpty || result.stderr.hasPrefix("note: this is a debug build"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "the benchmark's files are gone")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") } == ["scratch"])
    }

    @Test func textNamesTheThreeFigures() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["bench", "lifecycle", "--count", "2", "--directory", directory.path], in: directory)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.count == 4)
        #expect(lines.first == "Payment lifecycle (create → authorize → capture), 2 payments, zero-latency mock processor")
        #expect(lines.dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["payments/s", "baseline/s", "ratio"])
    }

    @Test(arguments: [["--count", "0"], ["--count", "many"], ["--count", "1000001"]])
    func aBadCountIsAUsageError(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["bench", "lifecycle"] + arguments, in: directory)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("--count"))
    }

    @Test func aMissingDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["bench", "lifecycle", "--count", "1", "--directory", directory.file("nope")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot create the benchmark's temporary directory in \(directory.file("nope"))"))
    }

    @Test func helpExplainsTheBaseline() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["bench", "lifecycle", "--help"], in: directory)
        #expect(result.status == 0)
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("USAGE: paypanel bench lifecycle [--count <n>] [--directory <path>] [--db <url>] [--json]"))
        #expect(text.contains("7 per payment: five on the payments database, two on the processor's ledger"))
    }
}

/// Ctrl-C in the middle of `bench lifecycle`: its `paypanel-bench-<UUID>` directory of database
/// files is removed before the process ends.
@Suite struct BenchLifecycleInterruptTests {
    @Test func sigintRemovesTheTemporaryDirectory() async throws {
        let directory = try TemporaryDirectory()
        let scratch = directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let process = try SpawnedProcess(
            CLIRunner.binary.path(percentEncoded: false), ["bench", "lifecycle", "--count", "1000000", "--directory", scratch],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path], workingDirectory: directory.path,
            stderr: .file(directory.file("bench.err")))
        defer { if process.isRunning { process.crash() } }
        // Running once its directory holds the benchmark's database files.
        let deadline = Date().addingTimeInterval(60)
        var benchDirectory: String?
        while benchDirectory == nil {
            let made = try FileManager.default.contentsOfDirectory(atPath: scratch).first { $0.hasPrefix("paypanel-bench-") }
            if let made, let files = try? FileManager.default.contentsOfDirectory(atPath: scratch + "/" + made), files.contains(where: { $0.hasSuffix(".sqlite") }) {
                benchDirectory = made
                break
            }
            guard Date() < deadline, process.isRunning else {
                Issue.record("the benchmark made no directory with database files: \(ChildProcess.readText(directory.file("bench.err")))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(process.signal(SIGINT))
        #expect(await process.waitForExit(within: 60))
        #expect(process.status == 130, "\(ChildProcess.readText(directory.file("bench.err")))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "\(benchDirectory ?? "") is gone")
    }
}
