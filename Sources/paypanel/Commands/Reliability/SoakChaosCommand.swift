import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel soak chaos [--clients N] [--seconds S] [--seed S] [--dir PATH] [--json]`
struct SoakChaosCommand: CLICommand {
    static let clients = OptionSpec.value("--clients", "n", help: "How many clients pay at once, each on its own thread (default: 12).")
    static let seconds = OptionSpec.value("--seconds", "n", help: "How long the clients pay and the servers are killed, in seconds (default: 120).")

    static let spec = CommandSpec(
        name: "chaos",
        abstract: "Many clients paying while serve and processor serve are SIGKILLed at random; audit every answer against both ledgers.",
        discussion: """
            Starts 'paypanel processor serve' (its webhooks on) and 'paypanel serve --processor http://… --public-url auto' \
            with short reconciliation delays, then runs N clients at once for S seconds: payments through serve's API \
            (create, confirm with test cards including slow, held, dropped and declined ones, capture or cancel, \
            partial refunds) and the device's checkout pay. Every POST has an Idempotency-Key and is retried with it \
            after no answer, a 5xx or a 429. Meanwhile serve or processor serve is SIGKILLed every 3 to 8 seconds \
            (seeded) and restarted on the same files and port. At the end both restart cleanly, serve's worker \
            settles what was left unknown, both stop, and the run is audited: both ledgers agree (nothing lost, \
            nothing charged twice, invariants, histories) and no answer a client was given contradicts the money \
            at the processor. The seed fixes the flows, cards and kill delays; timing depends on the machine. \
            Exits 1 when anything is found.
            """,
        options: [clients, seconds, ReliabilityOptions.seed, ReliabilityOptions.directory, CommonOptions.json])

    let clients: Int
    let seconds: Int
    let seed: UInt64
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        clients = try arguments.integer(Self.clients.name, in: 1...200) ?? 12
        seconds = try arguments.integer(Self.seconds.name, in: 1...86_400) ?? 120
        seed = try ReliabilityOptions.seed(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let (directory, cleanup) = try ReliabilityOptions.workingDirectory(arguments, prefix: "soak-chaos")
        defer { cleanup() }
        let configuration = ChaosSoakConfiguration(
            clients: clients, seconds: Double(seconds), seed: seed, executable: try ReliabilityOptions.executablePath(), directory: directory)
        let progress = ProgressLine(console: console)
        let report: ChaosSoakReport
        do {
            report = try ChaosSoak(configuration: configuration).run { done, total, kills in
                progress.show("chaos soak: \(done) of \(total) s, \(kills) kills")
            }
        } catch let error as ProcessorSoakError {
            progress.clear()
            throw CLIFailure(code: error.code, message: error.message)
        } catch let error as ListeningProcessError {
            progress.clear()
            throw CLIFailure(code: error.code, message: error.message + " (keep the run's files with --dir to look at them)")
        }
        progress.clear()
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else {
            let answers = report.answers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            console.print("Chaos soak: \(report.clients) clients for \(Int(report.seconds)) s, seed \(report.seed), \(String(format: "%.1f", report.elapsed)) s in all")
            console.print("  requests        \(report.requests) calls to serve; \(report.flows.values.reduce(0, +)) flows (\(report.flowsAbandoned) given up)")
            console.print("  answers         \(report.answerCount): \(answers)")
            console.print("  serve           \(report.serveKills) SIGKILLs; \(report.serveRestarts) restarts, \(report.servePortReused) on the old port")
            console.print("  processor serve \(report.processorKills) SIGKILLs; \(report.processorRestarts) restarts, \(report.processorPortReused) on the old port")
            console.print("  settled         \(String(format: "%.1f", report.settleSeconds)) s after a clean restart of both")
            console.print("  audited         \(report.audit.intents) intents, \(report.audit.attempts) attempts, \(report.audit.refunds) refunds, \(report.audit.events) events, \(report.audit.ledgerEntries) ledger entries; \(report.answersAudited) answers against the money")
            console.print("  contradictions  \(report.contradictions.count)")
            console.print(report.failures.isEmpty ? "  result          pass: both ledgers agree and no answer contradicts the money" : "  result          FAIL: \(report.failures.count) finding(s)")
            printFindings(report.failures, console: console)
        }
        return report.failures.isEmpty ? .success : .failure
    }
}
