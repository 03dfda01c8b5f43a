import Foundation
import PayPanel
import Testing
import TestSupport

/// The command lines: usage errors say what was wrong and exit 64.
@Suite("processor serve and --processor on the command line")
struct ProcessorServeCLITests {
    @Test(
        "Usage errors exit 64 with the reason",
        arguments: [
            (["processor", "serve", "--port", "70000"], "--port"),
            (["processor", "serve", "--hold", "0"], "--hold"),
            (["bench", "processor-scale", "--sizes", "10"], "--sizes"),
            (["bench", "processor", "--threads", "1,65"], "--threads"),
            (["bench", "processor", "--threads", "1", "--seconds", "0"], "--seconds"),
            (["bench", "processor", "--against", "https://127.0.0.1:8420"], "--against"),
            (["bench", "processor", "--threads", "1", "--count", "5"], "--count"),
            (["bench", "processor-scale", "--sizes", "10,20", "--authorizations", "5000"], "accounts"),
            (["payments", "capture", "pi_x", "--processor", "https://127.0.0.1:12111"], "https is not supported"),
            (["payments", "capture", "pi_x", "--processor", "http://127.0.0.1:12111/v1"], "no path"),
            (["payments", "capture", "pi_x", "--processor", "http://127.0.0.1:12111", "--processor-key", "a b"], "--processor-key"),
        ])
    func usageErrors(arguments: [String], reason: String) throws {
        let directory = try TemporaryDirectory("procserve-cli")
        let result = try CLIRunner.run(arguments, in: directory)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(reason), "\(result)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test("bench processor --json reports both rates and their ratio (the shape only: speed is never asserted)")
    func benchShape() throws {
        let directory = try TemporaryDirectory("procserve-cli")
        let result = try CLIRunner.run(["bench", "processor", "--count", "5", "--json"], in: directory, timeout: 120)
        #expect(result.status == 0, "\(result)")
        let json = try JSONParser().parse(result.stdout)
        #expect(json["count"]?.int64Value == 5)
        #expect(json["in_process_per_second"]?.int64Value != nil && json["over_http_per_second"]?.int64Value != nil)
        #expect(json["ratio"]?.stringValue != nil)
    }

    @Test("bench processor --threads --json reports flows/s, latencies and ratios per thread count (the shape only: speed is never asserted)")
    func flowBenchShape() throws {
        let directory = try TemporaryDirectory("procserve-cli")
        let result = try CLIRunner.run(["bench", "processor", "--threads", "1,2", "--seconds", "0.2", "--json"], in: directory, timeout: 120)
        #expect(result.status == 0, "\(result)")
        let json = try JSONParser().parse(result.stdout)
        let rows = json["mock"]?.arrayValue ?? []
        #expect(rows.map { $0["threads"]?.int64Value } == [1, 2], "\(result.stdout)")
        #expect(rows.allSatisfy { ($0["flows"]?.int64Value ?? 0) > 0 && $0["answersChecked"]?.int64Value == 3 * ($0["flows"]?.int64Value ?? 0) })
        #expect(rows.allSatisfy { $0["flowsPerSecond"] != nil && $0["p50Ms"] != nil && $0["p99Ms"] != nil && $0["ratioToFirst"] != nil })
        // CPU per flow from /proc (the server runs in the process): the whole process's covers
        // its mock-processor thread's.
        for row in rows {
            let process = try #require(row["processCPUMsPerFlow"]?.numberValue.flatMap { Double($0.literal) }, "\(result.stdout)")
            let thread = try #require(row["mockProcessorThreadCPUMsPerFlow"]?.numberValue.flatMap { Double($0.literal) }, "\(result.stdout)")
            #expect(thread >= 0 && process >= thread, "\(result.stdout)")
        }
        #expect(json["scaling"] != nil && json["scalingTargetMet"]?.boolValue != nil && json["other"] == .null)
    }

    @Test("bench processor-scale --json reports each size's median and p99 and their ratio (the shape only: speed is never asserted)")
    func scaleBenchShape() throws {
        let directory = try TemporaryDirectory("procserve-cli")
        let result = try CLIRunner.run(
            ["bench", "processor-scale", "--sizes", "2,30", "--authorizations", "10", "--rounds", "2", "--directory", directory.path, "--json"],
            in: directory, timeout: 120)
        #expect(result.status == 0, "\(result)")
        let json = try JSONParser().parse(result.stdout)
        let sizes = json["sizes"]?.arrayValue ?? []
        #expect(sizes.map { $0["intents"]?.int64Value } == [2, 30])
        // A tenth of its size per account, at least one: 10 accounts of 2 intents, 4 of 30.
        #expect(sizes.map { $0["accounts"]?.int64Value } == [10, 4])
        #expect(sizes.allSatisfy { $0["authorizations"]?.int64Value == 10 && $0["medianMs"] != nil && $0["p99Ms"] != nil }, "\(result.stdout)")
        #expect(json["medianRatio"] != nil && json["targetMet"]?.boolValue != nil)
        #expect(json["serverExitStatus"]?.int64Value == 0)
        // Its temporary directory inside --directory is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("paypanel-bench-") } == [])
    }

    @Test("processor serve --help names the test endpoints and the docs")
    func help() throws {
        let directory = try TemporaryDirectory("procserve-cli")
        let result = try CLIRunner.run(["processor", "serve", "--help"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.contains("sk_test_") && result.stdout.contains("docs/mock-processor.md"))
    }
}
