import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel soak concurrency [--processes N] [--iterations N] [--seed S] [--dir PATH] [--json]`
struct SoakConcurrencyCommand: CLICommand {
    static let processes = OptionSpec.value("--processes", "n", help: "Processes started together in each race (default 8).")

    static let spec = CommandSpec(
        name: "concurrency",
        abstract: "Hammer one payments database from many processes at once; prove no busy errors and exactly-once effects.",
        discussion: """
            Each iteration is a round of races, N processes at a time on one database and one processor \
            ledger: creates (half share an idempotency key, half have their own), authorizations of one \
            intent under one key and of another with no key while 'reconcile' runs, captures racing on \
            both, refunds of 6.00 racing on a 10.00 capture and 3.00 refunds under one shared key. Real \
            time and real processor latency (20ms±10ms). Then a final reconcile and the audit: no \
            process may show SQLITE_BUSY, each race has exactly one winner at the processor, and the \
            invariants, history replay and ledger agreement hold. Exits 1 when anything is found.
            """,
        options: [processes, ReliabilityOptions.iterations, ReliabilityOptions.seed, ReliabilityOptions.directory, CommonOptions.json])

    let processCount: Int
    let rounds: Int
    let seed: UInt64
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        processCount = try arguments.integer(Self.processes.name, in: 2...64) ?? 8
        rounds = try arguments.integer(ReliabilityOptions.iterations.name, in: 1...10_000) ?? 20
        seed = try ReliabilityOptions.seed(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let (directory, cleanup) = try ReliabilityOptions.workingDirectory(arguments, prefix: "soak-concurrency")
        defer { cleanup() }
        let configuration = ConcurrencySoakConfiguration(
            processes: processCount, rounds: rounds, seed: seed, executable: try ReliabilityOptions.executablePath(), directory: directory)
        let progress = ProgressLine(console: console)
        let soak = try ConcurrencySoak(configuration: configuration)
        // Past every grace period and settlement delay, so the final reconcile settles everything.
        let finalTime = Date().addingTimeInterval(3600)
        let report = try soak.run(
            finalTime: finalTime, readLedger: { now in try ReliabilityOptions.ledgerEffects(path: configuration.ledgerPath, at: now) },
            progress: { done, total in progress.show("concurrency soak: round \(done) of \(total)") })
        progress.clear()
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else {
            console.print("Concurrency soak: \(report.rounds) rounds of \(report.processes) processes at once, seed \(report.seed), \(String(format: "%.1f", report.seconds)) s")
            console.print("  processes       \(report.processesRun): \(report.creates) creates, \(report.authorizations) authorizations, \(report.captures) captures, \(report.refunds) refunds, reconciles alongside")
            console.print("  race losers     \(report.expectedRejections) refused as they should be (in flight, in progress, beyond the capture)")
            console.print("  busy errors     \(report.busyErrors)")
            console.print("  audited         \(report.audit.intents) intents, \(report.audit.events) events, \(report.audit.ledgerEntries) ledger entries")
            console.print(report.failures.isEmpty ? "  result          pass: no busy errors, one winner per race, invariants hold, histories replay" : "  result          FAIL: \(report.failures.count) finding(s)")
            printFindings(report.failures, console: console)
        }
        return report.failures.isEmpty ? .success : .failure
    }
}
