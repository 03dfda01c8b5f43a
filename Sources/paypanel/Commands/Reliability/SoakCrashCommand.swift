import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel soak crash [--iterations N] [--seed S] [--dir PATH] [--json]`
struct SoakCrashCommand: CLICommand {
    static let spec = CommandSpec(
        name: "crash",
        abstract: "Kill payment flows with SIGKILL at every fault point and at random moments; prove nothing is lost or charged twice.",
        discussion: """
            Runs authorize / capture / void / refund flows (cards, 3-D Secure-free triggers, an Apple Pay \
            token) against the mock processor with latency, one child process per request like a server. \
            The first iterations arm each named fault point (PAYPANEL_FAULT) in turn; the rest pick at \
            random between no fault, a fault point, and a SIGKILL after a random delay. After every kill \
            'paypanel reconcile' runs; after every flow, reconcile again past the grace period; at the \
            end, eight days later. Then it checks: every processor approval is reflected by exactly one \
            attempt, nothing is captured or refunded twice, the DESIGN §4 invariants hold, and every \
            intent's event history replays through the state machine to exactly the stored rows. Time is \
            virtual (a minute per request), so a seed repeats a run. Exits 1 when anything is found.
            """,
        options: [ReliabilityOptions.iterations, ReliabilityOptions.seed, ReliabilityOptions.directory, CommonOptions.json])

    let iterations: Int
    let seed: UInt64
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        iterations = try arguments.integer(ReliabilityOptions.iterations.name, in: 1...100_000) ?? 100
        seed = try ReliabilityOptions.seed(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let (directory, cleanup) = try ReliabilityOptions.workingDirectory(arguments, prefix: "soak-crash")
        defer { cleanup() }
        let configuration = CrashSoakConfiguration(
            iterations: iterations, seed: seed, executable: try ReliabilityOptions.executablePath(), directory: directory)
        let progress = ProgressLine(console: console)
        let soak = try CrashSoak(configuration: configuration)
        let report = try soak.run(
            readLedger: { now in try ReliabilityOptions.ledgerEffects(path: configuration.ledgerPath, at: now) },
            progress: { done, total in progress.show("crash soak: iteration \(done) of \(total)") })
        progress.clear()
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else {
            console.print("Crash soak: \(report.iterations) flows, seed \(report.seed), \(String(format: "%.1f", report.seconds)) s")
            console.print("  requests        \(report.requests) child processes (\(report.reconciles) of them reconcile)")
            console.print("  SIGKILLs        \(report.kills): \(report.faultKills.values.reduce(0, +)) at fault points (\(report.faultKills.count) distinct), \(report.timerKills) at random moments")
            console.print("  audited         \(report.audit.intents) intents, \(report.audit.attempts) attempts, \(report.audit.refunds) refunds, \(report.audit.events) events, \(report.audit.ledgerEntries) ledger entries")
            console.print(report.failures.isEmpty ? "  result          pass: nothing lost, nothing twice, invariants hold, histories replay" : "  result          FAIL: \(report.failures.count) finding(s)")
            printFindings(report.failures, console: console)
        }
        return report.failures.isEmpty ? .success : .failure
    }
}
