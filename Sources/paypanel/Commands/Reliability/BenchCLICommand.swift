import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel bench cli [--runs N] [--intents N] [--json]`
struct BenchCLICommand: CLICommand {
    static let runs = OptionSpec.value("--runs", "n", help: "Start-ups timed per command (default 30).")
    static let intents = OptionSpec.value("--intents", "n", help: "Intents in the large database for the memory figure (default 100000).")

    static let spec = CommandSpec(
        name: "cli",
        abstract: "Measure the CLI's start-up time and the peak memory of 'payments list' over many intents.",
        discussion: """
            Runs this binary as a child process, as a user would: 'paypanel --version' and 'payments list' \
            on an empty database, --runs times each, interleaved, and reports the median and the 90th \
            percentile wall time from spawn to exit. Then lists a database of 100 intents and one of \
            --intents intents (rows written straight into the intents table, as the list reads them), \
            text and --json, and reports each run's peak resident memory (VmHWM, sampled every \
            millisecond from /proc) and time. \
            Build with 'swift build -c release' first: a debug build measures Swift's debug code.
            """,
        options: [runs, intents, CommonOptions.json])

    let runCount: Int
    let intentCount: Int
    let json: Bool

    init(arguments: ParsedArguments) throws {
        runCount = try arguments.integer(Self.runs.name, in: 1...10_000) ?? 30
        intentCount = try arguments.integer(Self.intents.name, in: 100...10_000_000) ?? 100_000
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let progress = ProgressLine(console: console)
        let executable = try ReliabilityOptions.executablePath()
        let directory = context.environment["PAYPANEL_BENCH_DIR"] ?? NSTemporaryDirectory() + "/paypanel-bench-cli-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { if context.environment["PAYPANEL_BENCH_DIR"] == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory, "NO_COLOR": "1"]
        func run(_ arguments: [String], sampleMemory: Bool = false) throws -> ChildProcess.Result {
            let result = try ChildProcess.run(
                executable, arguments, environment: environment, directory: directory, timeout: .seconds(600), sampleMemory: sampleMemory)
            guard result.exitCode == 0 else {
                throw CLIFailure(code: "bench_run_failed", message: "paypanel \(arguments.joined(separator: " ")) failed (\(result.termination)): \(result.stderr.prefix(200))")
            }
            return result
        }

        let empty = directory + "/empty.sqlite"
        _ = try run(["db", "migrate", "--db", empty])
        var version: [Double] = []
        var list: [Double] = []
        for round in 0..<runCount {
            progress.show("start-up: run \(round + 1) of \(runCount)")
            version.append(try run(["--version"]).duration.milliseconds)
            list.append(try run(["payments", "list", "--db", empty]).duration.milliseconds)
        }

        var memory: [JSONValue] = []
        for count in [100, intentCount] {
            progress.show("memory: writing \(count) intents")
            let path = directory + "/intents-\(count).sqlite"
            try BenchmarkDatabase.populate(path: path, count: count)
            for format in [[], ["--json"]] {
                progress.show("memory: listing \(count) intents \(format.first ?? "")")
                let result = try run(["payments", "list", "--db", path] + format, sampleMemory: true)
                memory.append(.orderedObject([
                    ("intents", .number(count)), ("format", .string(format.isEmpty ? "text" : "json")),
                    ("peakKiB", .number(result.peakMemoryKiB)), ("milliseconds", .number(Int64(result.duration.milliseconds.rounded()))),
                    ("outputBytes", .number(result.stdout.utf8.count)),
                ]))
            }
        }
        progress.clear()
        let figures = JSONValue.orderedObject([
            ("runs", .number(runCount)),
            ("versionMedianMicroseconds", Self.micro(BenchmarkStatistics.median(version))), ("versionP90Microseconds", Self.micro(BenchmarkStatistics.percentile(version.sorted(), 0.9))),
            ("listEmptyMedianMicroseconds", Self.micro(BenchmarkStatistics.median(list))), ("listEmptyP90Microseconds", Self.micro(BenchmarkStatistics.percentile(list.sorted(), 0.9))),
            ("memory", .array(memory)),
        ])
        if json {
            console.printJSON(figures)
            return .success
        }
        console.print("CLI start-up (\(runCount) runs each, spawn to exit):")
        console.print("  paypanel --version                 median \(Self.format(BenchmarkStatistics.median(version))) ms, p90 \(Self.format(BenchmarkStatistics.percentile(version.sorted(), 0.9))) ms")
        console.print("  paypanel payments list (empty db)  median \(Self.format(BenchmarkStatistics.median(list))) ms, p90 \(Self.format(BenchmarkStatistics.percentile(list.sorted(), 0.9))) ms")
        console.print("payments list, peak resident memory:")
        for row in memory {
            let intents = row["intents"]?.int64Value ?? 0
            let format = row["format"]?.stringValue ?? ""
            console.print("  \(String(intents).padding(toLength: 8, withPad: " ", startingAt: 0)) intents, \(format.padding(toLength: 4, withPad: " ", startingAt: 0))  \(row["peakKiB"]?.int64Value ?? 0) KiB in \(row["milliseconds"]?.int64Value ?? 0) ms")
        }
        return .success
    }


    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func micro(_ milliseconds: Double) -> JSONValue { .number(Int64((milliseconds * 1000).rounded())) }
}
