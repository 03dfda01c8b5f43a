import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel bench processor [--count N] [--json]`
struct BenchProcessorCommand: CLICommand {
    static let count = OptionSpec.value("--count", "n", help: "Authorizations each way (default 1000).")

    static let spec = CommandSpec(
        name: "processor",
        abstract: "Measure authorizations/s through the mock processor over HTTP against the in-process mock.",
        discussion: """
            Starts 'processor serve' inside this process on a free loopback port and times, in five interleaved \
            rounds, authorizations through the in-process mock and through HTTPPaymentProcessor against the \
            server (a new connection per call, the Stripe layer, the account store's write); prints the medians and \
            their ratio. Ledgers go in a temporary directory that is removed afterwards. Build with \
            'swift build -c release' first.
            """,
        options: [count, CommonOptions.json])

    let iterations: Int
    let json: Bool

    init(arguments: ParsedArguments) throws {
        iterations = try arguments.integer(Self.count.name, in: 5...1_000_000) ?? 1000
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
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
}
