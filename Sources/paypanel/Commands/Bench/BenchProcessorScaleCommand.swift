import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel bench processor-scale [--sizes 10,10000] [--authorizations N] [--rounds N] [--directory PATH] [--json]`
struct BenchProcessorScaleCommand: CLICommand {
    static let sizes = OptionSpec.value("--sizes", "list", help: "Intents per account, comma-separated, smallest first (default: 10,10000; each 1 to 50000).")
    static let authorizations = OptionSpec.value("--authorizations", "n", help: "Timed authorizations per size (default: 200; 10 to 5000).")
    static let rounds = OptionSpec.value("--rounds", "n", help: "Interleaved rounds the authorizations are split into (default: 5).")

    static let spec = CommandSpec(
        name: "processor-scale",
        abstract: "Measure authorization latency through 'processor serve' in a small account against a large one.",
        discussion: """
            Seeds accounts of each --sizes (authorized PaymentIntents, made in process through the mock's own \
            service and ledger), starts this binary as 'processor serve --port 0' on that ledger, and times \
            --authorizations 'POST /v1/payment_intents' (confirm=true, pm_card_visa) per size over one keep-alive \
            connection, the sizes taking turns in --rounds rounds. Each account takes at most a tenth of its size \
            in timed authorizations, so it stays near its size while measured. Prints the median and p99 latency \
            per size and the ratio largest / smallest (target: at most 1.5). Files go in a temporary directory, \
            removed afterwards. Build with 'swift build -c release' for figures worth recording.
            """,
        options: [sizes, authorizations, rounds, BenchServeCommand.directory, CommonOptions.json])

    let accountSizes: [Int]
    let authorizationCount: Int
    let roundCount: Int
    let parent: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        accountSizes = try BenchServeCommand.counts(
            arguments.value(Self.sizes.name) ?? "10,10000", option: Self.sizes.name, what: "account size", in: 1...50_000, example: "10,10000")
        guard accountSizes.count >= 2, accountSizes == accountSizes.sorted(), Set(accountSizes).count == accountSizes.count else {
            throw UsageError("'\(Self.sizes.name)' takes at least two different sizes, smallest first, such as 10,10000")
        }
        authorizationCount = try arguments.integer(Self.authorizations.name, in: 10...5000) ?? 200
        roundCount = try arguments.integer(Self.rounds.name, in: 1...100) ?? 5
        let accounts = ProcessorScaleBenchmark.accountCount(sizes: accountSizes, authorizations: authorizationCount)
        guard accounts <= ProcessorScaleBenchmark.maximumAccounts else {
            throw UsageError(
                "these sizes and \(Self.authorizations.name) need \(accounts) accounts (an account takes a tenth of its size in timed authorizations), more than the \(ProcessorScaleBenchmark.maximumAccounts) a run may use: ask for fewer authorizations or larger sizes")
        }
        parent = arguments.value(BenchServeCommand.directory.name)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let console = context.console
        let result = try await BenchRun.inFreshDirectory(console, parent: parent) { directory in
            let benchmark = ProcessorScaleBenchmark(
                sizes: accountSizes, authorizations: authorizationCount, rounds: roundCount, directory: directory,
                executable: try ReliabilityOptions.executablePath())
            return try await benchmark.run(progress: BenchRun.progress(console, label: "bench processor-scale"))
        }
        ProgressLine(console: console).clear()
        if json {
            console.printJSON(result.json)
        } else {
            let number = { (value: Double, places: Int) in String(format: "%.\(places)f", value) }
            console.print("Authorization latency through processor serve (POST /v1/payment_intents, confirm=true), \(authorizationCount) per size in \(roundCount) rounds")
            console.print("  intents  accounts  median ms  p99 ms")
            for size in result.figures {
                console.print("  \(pad(String(size.size), 7))  \(pad(String(size.accounts), 8))  \(pad(number(size.medianMilliseconds, 2), 9))  \(pad(number(size.p99Milliseconds, 2), 6))")
            }
            console.print("Ratio \(result.figures.last?.size ?? 0) / \(result.figures.first?.size ?? 0) intents: median \(number(result.medianRatio, 2))×, p99 \(number(result.p99Ratio, 2))× (target: median ≤ \(number(ProcessorScaleBenchmark.Result.ratioTarget, 1))×: \(result.targetMet ? "met" : "NOT met"))")
            console.print("Seeding took \(number(result.seedingSeconds, 1)) s; processor serve exited \(result.serverExitStatus) after SIGTERM")
        }
        return .success
    }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
