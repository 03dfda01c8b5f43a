import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel bench processor [--count N] [--json]`, or with `--threads LIST [--seconds S]
/// [--against URL]`: full flows per second with that many clients at once.
struct BenchProcessorCommand: CLICommand {
    static let count = OptionSpec.value("--count", "n", help: "Authorizations each way (default 1000).")
    static let threads = OptionSpec.value(
        "--threads", "list", help: "Measure create → capture → refund flows with this many concurrent clients, comma-separated (each 1 to 64), such as 1,8.")
    static let seconds = OptionSpec.value("--seconds", "s", help: "With --threads: seconds of flows per thread count and server (default 5; 0.1 to 600).")
    static let against = OptionSpec.value(
        "--against", "url", help: "With --threads: also measure an already-running Stripe-compatible server at http://HOST:PORT (such as localstripe), side by side.")

    static let spec = CommandSpec(
        name: "processor",
        abstract: "Measure authorizations/s through the mock processor over HTTP against the in-process mock; with --threads, concurrent payment flows/s.",
        discussion: """
            Starts 'processor serve' inside this process on a free loopback port and times, in five interleaved \
            rounds, authorizations through the in-process mock and through HTTPPaymentProcessor against the \
            server (a new connection per call, the Stripe layer, the account store's write); prints the medians and \
            their ratio. Ledgers go in a temporary directory that is removed afterwards. Build with \
            'swift build -c release' first.

            With --threads (or --seconds, --against): for each thread count T, T clients, each on its own \
            thread, keep-alive connection and sk_test_ key, run flows for --seconds against 'processor serve' \
            started in this process: form-encoded POST /v1/payment_intents (amount=1000, currency=usd, \
            capture_method=manual, payment_method=pm_card_visa, confirm=true), POST \
            /v1/payment_intents/{id}/capture, POST /v1/refunds (payment_intent={id}). Every answer must be a \
            200 with the status its step produces. Prints flows/s, p50 and p99 flow latency, each count's \
            ratio to the first, and the CPU time per flow of this process and of its mock-processor \
            thread, which every request passes through (from /proc; with its busy share of a core); with \
            --against, the same for that server, taking turns with the mock, and the ratio mock / other \
            at each count (a server that cannot run the flow is reported with the step and \
            its answer).
            """,
        options: [count, threads, seconds, against, CommonOptions.json])

    let iterations: Int
    /// Set when the flow benchmark was asked for.
    let threadCounts: [Int]?
    let flowSeconds: Double
    let other: ProcessorFlowBenchmark.Endpoint?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        iterations = try arguments.integer(Self.count.name, in: 5...1_000_000) ?? 1000
        json = arguments.flag(CommonOptions.json.name)
        let threadList = arguments.value(Self.threads.name)
        let secondsText = arguments.value(Self.seconds.name)
        let url = arguments.value(Self.against.name)
        guard threadList != nil || secondsText != nil || url != nil else {
            threadCounts = nil
            flowSeconds = 0
            other = nil
            return
        }
        guard arguments.value(Self.count.name) == nil else {
            throw UsageError("'\(Self.count.name)' is for the authorization benchmark; the flow benchmark (--threads) runs for --seconds")
        }
        threadCounts = try BenchServeCommand.counts(threadList ?? "1,8", option: Self.threads.name, what: "thread", in: 1...64, example: "1,8")
        if let secondsText {
            guard let value = Double(secondsText), value >= 0.1, value <= 600 else {
                throw UsageError("'\(Self.seconds.name)' takes a number of seconds from 0.1 to 600, not '\(secondsText)'")
            }
            flowSeconds = value
        } else {
            flowSeconds = 5
        }
        if let url {
            guard let endpoint = ProcessorFlowBenchmark.Endpoint(url: url) else {
                throw UsageError("'\(Self.against.name)' takes http://HOST:PORT with HOST an IPv4 address or localhost and no path, such as http://127.0.0.1:8420, not '\(url)'")
            }
            other = endpoint
        } else {
            other = nil
        }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        if let threadCounts { return try await runFlows(context, threadCounts: threadCounts) }
        let console = context.console
        let progress = ProgressLine(console: console)
        let result = try await BenchRun.inFreshDirectory(console, parent: nil) { directory in
            progress.show("measuring \(iterations) authorizations each way")
            return try await ProcessorBenchmark.run(count: iterations, rounds: 5, directory: directory)
        }
        progress.clear()
        if json {
            console.printJSON(result.json)
        } else {
            console.print("Processor benchmark: \(result.count) authorizations each way, one caller at a time")
            console.print("  in process      \(Int(result.inProcessPerSecond.rounded()))/s")
            console.print("  over HTTP       \(Int(result.overHTTPPerSecond.rounded()))/s  ratio \(String(format: "%.3f", result.ratio))")
            console.print("  (medians of \(result.rounds) interleaved rounds)")
        }
        return .success
    }

    /// On the caller's isolation, as `BenchRun`: the context (and its console) stays with the command.
    private func runFlows(
        _ context: CommandContext, threadCounts: [Int], isolation: isolated (any Actor)? = #isolation
    ) async throws -> ExitStatus {
        let console = context.console
        let result = try await BenchRun.inFreshDirectory(console, parent: nil) { directory in
            let benchmark = ProcessorFlowBenchmark(threadCounts: threadCounts, seconds: flowSeconds, other: other, directory: directory)
            return try await benchmark.run(progress: BenchRun.progress(console, label: "bench processor"))
        }
        ProgressLine(console: console).clear()
        if json {
            console.printJSON(result.json)
            return .success
        }
        let number = { (value: Double, places: Int) in String(format: "%.\(places)f", value) }
        console.print("Flows through processor serve (create+confirm, capture, refund; form-encoded, one keep-alive connection and key per thread), \(number(flowSeconds, 1)) s per thread count")
        render(result.mock, title: "processor serve (in process, 127.0.0.1)", to: console)
        if let scaling = result.scaling, let first = result.mock.first, let last = result.mock.last {
            console.print(
                "  \(last.threads) threads / \(first.threads): \(number(scaling, 2))× (target ≥ \(number(ProcessorFlowBenchmark.scalingTarget, 0))×: \(result.scalingTargetMet == true ? "met" : "NOT met"))")
        }
        if let url = result.otherURL {
            render(result.other, title: url, to: console)
            if let failure = result.otherFailure {
                console.print("  \(url) could not run the flow \(failure)")
            }
            if !result.mockOverOther.isEmpty {
                let pairs = zip(result.other, result.mockOverOther).map { "\($0.threads) thread(s) \(number($1, 2))×" }
                console.print("Ratio processor serve / \(url): \(pairs.joined(separator: ", "))")
            }
            if let ratio = result.otherRatio, let last = result.mock.last {
                console.print(
                    "  at \(last.threads) threads: \(number(ratio, 2))× (target ≥ \(number(ProcessorFlowBenchmark.otherTarget, 0))×: \(result.otherTargetMet == true ? "met" : "NOT met"))")
            }
        }
        return .success
    }

    private func render(_ figures: [ProcessorFlowBenchmark.Figures], title: String, to console: Console) {
        let number = { (value: Double, places: Int) in String(format: "%.\(places)f", value) }
        console.print(title)
        let withCPU = figures.contains { $0.processCPUMillisecondsPerFlow != nil }
        console.print("  threads  flows  flows/s  p50 ms  p99 ms  ×first" + (withCPU ? "  CPU ms/flow  mock-processor ms/flow (busy)" : ""))
        for (row, ratio) in zip(figures, ProcessorFlowBenchmark.Result.ratiosToFirst(figures)) {
            var line = "  \(pad(String(row.threads), 7))  \(pad(String(row.flows), 5))  \(pad(number(row.flowsPerSecond, 1), 7))  \(pad(number(row.p50Milliseconds, 2), 6))  \(pad(number(row.p99Milliseconds, 2), 6))  \(pad(number(ratio, 2), 6))"
            if let process = row.processCPUMillisecondsPerFlow, let serial = row.serialThreadCPUMillisecondsPerFlow {
                // Busy: the thread's CPU time as a share of the wall time (1.0 = a whole core).
                let busy = serial * row.flowsPerSecond / 1000
                line += "  \(pad(number(process, 2), 11))  \(pad(number(serial, 2), 13)) (\(number(busy * 100, 0)) %)"
            }
            console.print(line)
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
