import Foundation
import PayPanel
import PayPanelReliability
#if PostgreSQL
import PayPanelPostgres
#endif

/// `paypanel soak crash [--iterations N] [--seed S] [--dir PATH] [--db postgresql://…] [--json]`
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
            virtual (a minute per request), so a seed repeats a run. Exits 1 when anything is found. \
            With --db postgresql://… the payments live in a fresh schema of that database (the requests \
            are given it as $PAYPANEL_DB), dropped afterwards when the soak passes and kept for a look when \
            it fails; the processor's ledger stays a file in --dir.
            """,
        options: [ReliabilityOptions.iterations, ReliabilityOptions.seed, ReliabilityOptions.directory, database, CommonOptions.json])

    static let database = OptionSpec.value(
        "--db", "url",
        help: "Run the payments store on PostgreSQL at this postgresql:// URL, in a fresh schema of its own (a build with --traits PostgreSQL); default: a SQLite file in --dir.")

    let iterations: Int
    let seed: UInt64
    let arguments: ParsedArguments
    /// The fresh schema's maker for `--db` (nil: a SQLite file), refused here when `--db` is no PostgreSQL URL.
    let schemas: PostgreSQLRunSchemas?

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        iterations = try arguments.integer(ReliabilityOptions.iterations.name, in: 1...100_000) ?? 100
        seed = try ReliabilityOptions.seed(arguments)
        schemas = try arguments.value(Self.database.name).map {
            try PostgreSQLRunSchemas(database: $0, prefix: "soak", command: "soak crash", fallback: "the soak runs on a SQLite file in --dir")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let (directory, cleanup) = try ReliabilityOptions.workingDirectory(arguments, prefix: "soak-crash")
        defer { cleanup() }
        var configuration = CrashSoakConfiguration(
            iterations: iterations, seed: seed, executable: try ReliabilityOptions.executablePath(), directory: directory)
        let postgreSQL = try schemas.map { try Self.openFreshSchema($0, start: configuration.start) }
        configuration.database = postgreSQL?.argument
        let progress = ProgressLine(console: console)
        let soak = try CrashSoak(configuration: configuration, store: postgreSQL?.store)
        let report = try soak.run(
            readLedger: { now in try ReliabilityOptions.ledgerEffects(path: configuration.ledgerPath, at: now) },
            progress: { done, total in progress.show("crash soak: iteration \(done) of \(total)") })
        progress.clear()
        // A failed soak's schema stays for a look (on stderr, so --json stays one document).
        if report.failures.isEmpty {
            schemas?.dropAll()
        } else if let schemas {
            console.printError("note: the soak's PostgreSQL schema \(schemas.schemas.joined(separator: ", ")) is kept for inspection; drop it when done")
        }
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else {
            console.print("Crash soak: \(report.iterations) flows, seed \(report.seed), \(String(format: "%.1f", report.seconds)) s\(schemas == nil ? "" : ", on PostgreSQL")")
            console.print("  requests        \(report.requests) child processes (\(report.reconciles) of them reconcile)")
            console.print("  SIGKILLs        \(report.kills): \(report.faultKills.values.reduce(0, +)) at fault points (\(report.faultKills.count) distinct), \(report.timerKills) at random moments")
            console.print("  audited         \(report.audit.intents) intents, \(report.audit.attempts) attempts, \(report.audit.refunds) refunds, \(report.audit.events) events, \(report.audit.ledgerEntries) ledger entries")
            console.print(report.failures.isEmpty ? "  result          pass: nothing lost, nothing twice, invariants hold, histories replay" : "  result          FAIL: \(report.failures.count) finding(s)")
            printFindings(report.failures, console: console)
        }
        return report.failures.isEmpty ? .success : .failure
    }

    /// A fresh, migrated schema for the soak: the requests' `$PAYPANEL_DB`, and the store the
    /// audit reads it through.
    private static func openFreshSchema(_ schemas: PostgreSQLRunSchemas, start: Date) throws -> (argument: String, store: any PaymentStore) {
        #if PostgreSQL
        let fresh = try schemas.fresh("crash", clock: ManualClock(start))
        return (fresh.argument, try fresh.stores.openPostgreSQLStore())
        #else
        // Not reached: without the trait, PostgreSQLRunSchemas refuses the URL.
        throw CLIFailure(code: "postgresql_not_built", message: "this paypanel was built without PostgreSQL support: build it with 'swift build --traits PostgreSQL'")
        #endif
    }
}
