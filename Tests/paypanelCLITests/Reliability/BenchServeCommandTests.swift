import Foundation
import PayPanel
import TestSupport
import Testing

/// `paypanel bench serve`: the report's shape with tiny counts (a real `paypanel serve` child
/// on port 0, two client counts, a few idle connections), and that no payment failed. It
/// never checks the figures: a benchmark is not a timed test.
@Suite struct BenchServeCommandTests {
    @Test func jsonReportsBothSidesPerClientCountWithNoErrorsAndRemovesItsFiles() async throws {
        let directory = try TemporaryDirectory()
        let scratch = directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let arguments = ["bench", "serve", "--payments", "3", "--clients", "1,2", "--idle", "50", "--directory", scratch, "--json"]
        // On a thread of its own: the run blocks for seconds, and a blocked cooperative thread
        // would starve other suites' in-process servers. Generous timeout: a loaded machine.
        let result = try await onThread { try CLIRunner.run(arguments, in: directory, timeout: 300) }
        #expect(result.status == 0, "\(result)")
        let report = try JSONParser().parse(result.stdout)
        #expect(report.objectValue?.keys == ["store", "runs", "idle", "errors", "serverExitStatus", "targets"])
        #expect(report["store"] == "sqlite")
        #expect(report["errors"] == 0)
        #expect(report["serverExitStatus"] == 0)
        let runs = report["runs"]?.arrayValue ?? []
        #expect(runs.map { $0["clients"] } == [1, 2])
        #expect(runs.map { $0["servers"] } == [1, 1], "one server unless --servers says otherwise")
        for run in runs {
            #expect(run.objectValue?.keys == ["clients", "servers", "http", "inProcess", "ratio"])
            for side in ["http", "inProcess"] {
                let figures = run[side]
                // The server's CPU per payment is measured over HTTP only (in process it is the bench's own).
                let keys = ["payments", "paymentsPerSecond", "p50Ms", "p99Ms", "errors"] + (side == "http" ? ["serverCpuMsPerPayment", "serverContextSwitchesPerPayment", "serviceThreadCpuMsPerPayment", "serverThreadCpuMsPerPayment"] : [])
                #expect(figures?.objectValue?.keys == keys, "\(side): \(String(describing: figures))")
                if side == "http" {
                    #expect((Double(figures?["serverCpuMsPerPayment"]?.numberValue?.literal ?? "") ?? 0) > 0, "the server used CPU for its payments")
                    // Each request is read on the event loop and answered by a handler thread.
                    #expect((Double(figures?["serverContextSwitchesPerPayment"]?.numberValue?.literal ?? "") ?? 0) > 0, "the server's threads switched")
                    // One of the server's threads: within the server's time (3 payments may take
                    // less than the one clock tick /proc counts in, so 0 is allowed).
                    let service = Double(figures?["serviceThreadCpuMsPerPayment"]?.numberValue?.literal ?? "") ?? -1
                    let server = Double(figures?["serverCpuMsPerPayment"]?.numberValue?.literal ?? "") ?? 0
                    #expect(service >= 0 && service <= server, "the payment-service thread's CPU per payment, \(service) ms, within the server's \(server) ms")
                    // By kind of thread: the service thread's figure is one of them, the handler
                    // threads are one kind, and together they stay within the process's figure
                    // (a thread that ended meanwhile is missing; each is rounded to 0.001 ms).
                    let threads = figures?["serverThreadCpuMsPerPayment"]?.objectValue
                    let byKind = (threads?.members ?? []).map { ($0.key, Double($0.value.numberValue?.literal ?? "") ?? -1) }
                    #expect(byKind.contains { $0.0 == "payment-service" && abs($0.1 - service) < 0.01 }, "\(byKind)")
                    #expect(byKind.contains { $0.0 == "handler" } && !byKind.contains { $0.0.hasPrefix("handler-") }, "\(byKind)")
                    #expect(byKind.allSatisfy { $0.1 >= 0 } && byKind.map(\.1).reduce(0, +) <= server + 0.001 * Double(byKind.count), "\(byKind)")
                }
                #expect(figures?["payments"] == 3)
                #expect(figures?["errors"] == 0)
                for key in ["paymentsPerSecond", "p50Ms", "p99Ms"] {
                    #expect((Double(figures?[key]?.numberValue?.literal ?? "") ?? 0) > 0, "\(side).\(key)")
                }
            }
            #expect((Double(run["ratio"]?.numberValue?.literal ?? "") ?? 0) > 0)
        }
        let idle = report["idle"]
        #expect(idle?.objectValue?.keys == ["connections", "residentAtStartMiB", "residentBeforeMiB", "residentMiB", "peakMiB", "freshRequestServed"])
        #expect(idle?["connections"] == 50)
        #expect(idle?["freshRequestServed"] == true)
        #expect((Double(idle?["residentMiB"]?.numberValue?.literal ?? "") ?? 0) > 0)
        #expect(report["targets"]?["noErrors"] == true)
        #expect(report["targets"]?.objectValue?.keys == [
            "oneClientRatioAtLeast0.7", "moreClientsMorePayments", "moreServersMorePayments", "noErrors", "residentAtMost64MiB",
        ])
        #expect(report["targets"]?["moreServersMorePayments"] == .null, "one server count: nothing to compare")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "the benchmark's files are gone")
    }

    @Test(arguments: [
        ["--clients", "0"], ["--clients", "1,,8"], ["--clients", "many"], ["--payments", "0"], ["--idle", "5000"], ["--servers", "0"],
        ["--servers", "9"], ["--servers", "1,two"], ["--db", "sqlite:bench.sqlite"],
    ])
    func badCountsAreUsageErrors(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["bench", "serve"] + arguments, in: directory)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(arguments[0]), "\(result.stderr)")
    }
}
