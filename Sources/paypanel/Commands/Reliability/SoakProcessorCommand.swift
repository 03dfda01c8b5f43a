import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel soak processor [--iterations N] [--seed S] [--dir PATH] [--json]`
struct SoakProcessorCommand: CLICommand {
    static let spec = CommandSpec(
        name: "processor",
        abstract: "The crash soak with the processor in its own process: SIGKILL serve and processor serve; prove both ledgers agree.",
        discussion: """
            Starts 'paypanel processor serve' and 'paypanel serve --processor http://…' on port 0 and drives \
            payments through serve's API (create, confirm, capture or cancel, refunds). The first iterations \
            alternate two kinds of crash: serve started with each named fault point (PAYPANEL_FAULT) in turn, \
            and processor serve killed while each network fault is in progress (DROP_AFTER, SLOW_2S, \
            TIMEOUT_THEN_APPROVED, HTTP_503, HTTP_429); the rest pick at random between no fault, a fault \
            point, and a SIGKILL of either server after a seeded delay. Killed servers restart on the same \
            files (processor serve on its old port when it is free). serve's worker resolves unknown outcomes; \
            the client waits for it. At the end both servers stop and serve's database is audited against \
            the processor's ledger: nothing lost, nothing charged twice, invariants hold, histories replay. \
            Serve runs on the real clock: a run takes about 5 s per unknown outcome. Exits 1 when anything is found.
            """,
        options: [ReliabilityOptions.iterations, ReliabilityOptions.seed, ReliabilityOptions.directory, CommonOptions.json])

    let iterations: Int
    let seed: UInt64
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        iterations = try arguments.integer(ReliabilityOptions.iterations.name, in: 1...10_000) ?? 30
        seed = try ReliabilityOptions.seed(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let (directory, cleanup) = try ReliabilityOptions.workingDirectory(arguments, prefix: "soak-processor")
        defer { cleanup() }
        let configuration = ProcessorSoakConfiguration(
            iterations: iterations, seed: seed, executable: try ReliabilityOptions.executablePath(), directory: directory)
        let progress = ProgressLine(console: console)
        let report: ProcessorSoakReport
        do {
            report = try ProcessorCrashSoak(configuration: configuration).run { done, total in
                progress.show("processor crash soak: iteration \(done) of \(total)")
            }
        } catch let error as ProcessorSoakError {
            progress.clear()
            throw CLIFailure(code: error.code, message: error.message)
        }
        progress.clear()
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else {
            console.print("Processor crash soak: \(report.iterations) flows, seed \(report.seed), \(String(format: "%.1f", report.seconds)) s")
            console.print("  requests        \(report.requests) calls to serve; \(report.settleWaits) waits for its worker")
            console.print("  serve           \(report.faultKills.values.reduce(0, +)) SIGKILLs at fault points (\(report.faultKills.count) distinct, \(report.faultsNotReached) armed but not reached), \(report.serveKills) at random moments; \(report.serveRestarts) restarts")
            console.print("  processor serve \(report.processorKills) SIGKILLs (\(report.networkFaultKills.values.reduce(0, +)) during network faults: \(report.networkFaultKills.keys.sorted().joined(separator: ", "))); \(report.processorRestarts) restarts, \(report.processorPortReused) on the old port")
            console.print("  audited         \(report.audit.intents) intents, \(report.audit.attempts) attempts, \(report.audit.refunds) refunds, \(report.audit.events) events, \(report.audit.ledgerEntries) ledger entries")
            console.print(report.failures.isEmpty ? "  result          pass: both ledgers agree, nothing lost, nothing twice, invariants hold, histories replay" : "  result          FAIL: \(report.failures.count) finding(s)")
            printFindings(report.failures, console: console)
        }
        return report.failures.isEmpty ? .success : .failure
    }
}
