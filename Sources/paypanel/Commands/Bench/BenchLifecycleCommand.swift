import Foundation
import MockProcessor
import PayPanel
import PayPanelReliability
#if PostgreSQL
import PayPanelPostgres
#endif

/// `paypanel bench lifecycle [--count N] [--directory PATH] [--json]`
struct BenchLifecycleCommand: CLICommand {
    static let spec = CommandSpec(
        name: "lifecycle",
        abstract: "Measure create → authorize → capture against raw SQLite doing the same write transactions.",
        discussion: """
            Runs N payments (10.00 USD, manual capture, card 4242…) through the payment service and the \
            zero-latency mock processor, on fresh database files in a temporary directory with the \
            production durability settings (WAL, every commit on disk before it returns). In the same run, interleaved with it, \
            a baseline of raw SQLite does the same number of durable write transactions (\(LifecycleBenchmark.transactionsPerPayment) \
            per payment: five on the payments database, two on the processor's ledger), one row of a \
            similar size each. Prints payments per second, baseline payments per second and their ratio. \
            The temporary files are removed afterwards. Build with 'swift build -c release' for figures \
            worth recording.
            """,
        options: [
            .value("--count", "n", help: "How many payments (default: \(defaultCount); 1 to \(maximumCount))."),
            .value("--directory", "path", help: "Where to create the temporary files (default: the system's temporary directory)."),
            .value(
                "--db", "url",
                help: "Run the payments store on PostgreSQL at this postgresql:// URL (a schema of its own, dropped afterwards), against raw PostgreSQL commits (a build with --traits PostgreSQL)."),
            CommonOptions.json,
        ])

    static let defaultCount = 1000
    static let maximumCount = 1_000_000

    let count: Int
    let parent: String?
    let json: Bool
    let database: String?

    init(arguments: ParsedArguments) throws {
        database = arguments.value("--db")
        count = try arguments.integer("--count", in: 1...Self.maximumCount) ?? Self.defaultCount
        parent = arguments.value("--directory")
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let console = context.console
        return try await BenchRun.inFreshDirectory(console, parent: parent) { directory in
            let stores = try Self.postgreSQLStores(database, directory: directory)
            defer { stores?.cleanup() }
            let benchmark = LifecycleBenchmark(
                count: count, directory: directory, makeStore: stores?.makeStore, makeBaseline: stores?.makeBaseline,
                roundTrips: stores?.roundTrips
            ) { ledgerPath, clock in
                try MockProcessor(ledgerPath: ledgerPath, clock: clock)  // zero latency: nothing to wait for
            }
            let progress = Progress(total: count, enabled: console.stderrIsTerminal)
            let result = try await benchmark.run { done in progress.update(done) }
            progress.finish()
            if json {
                console.printJSON(result.json)
            } else {
                let rate = { (value: Double) in String(format: "%.1f", value) }
                console.print("Payment lifecycle (create → authorize → capture), \(count) payments, zero-latency mock processor")
                console.print("  payments/s  \(rate(result.paymentsPerSecond))")
                console.print("  baseline/s  \(rate(result.baselinePerSecond))  (raw \(stores == nil ? "SQLite" : "PostgreSQL + SQLite ledger"), \(result.transactionsPerPayment) durable write transactions per payment)")
                console.print("  ratio       \(String(format: "%.3f", result.ratio))")
                if let roundTrips = result.roundTripsPerPayment {
                    console.print("  round trips \(String(format: "%.1f", roundTrips)) per payment (to PostgreSQL, counted by the store)")
                }
            }
            return .success
        }
    }

    /// The store and baseline of a PostgreSQL run, or nil for SQLite.
    struct PostgreSQLStores {
        let makeStore: @Sendable () throws -> any PaymentStore
        let makeBaseline: @Sendable () throws -> any CommitBaseline
        /// The store's round trips to the server so far.
        let roundTrips: @Sendable () -> Int
        let cleanup: () -> Void
    }

    static func postgreSQLStores(_ database: String?, directory: String) throws -> PostgreSQLStores? {
        guard let database else { return nil }
        guard case .postgreSQL(let url, _) = try StoreLocation(database) else {
            throw UsageError("'--db' for 'bench lifecycle' is a postgresql:// URL; without it the benchmark runs on SQLite files")
        }
        #if PostgreSQL
        let schema = "bench_\(UUID().uuidString.prefix(8).lowercased())"
        let baselineSchema = schema + "_raw"
        let factory = try PostgreSQLStoreFactory(url: url, schema: schema)
        return PostgreSQLStores(
            makeStore: { try factory.openPostgreSQLStore() },
            makeBaseline: {
                // Five of a payment's seven commits are the payments store's; two the processor ledger's (SQLite).
                try LifecycleBenchmark.MixedCommitBaseline(
                    store: RawPostgreSQL(try PostgreSQLCommitBaseline(url: url, schema: baselineSchema)), storeCommits: 5,
                    ledgerPath: directory + "/baseline-ledger.sqlite")
            },
            // The factory's pool: every store it opens counts there, the baseline's connection does not.
            roundTrips: { factory.roundTrips },
            cleanup: {
                try? PostgreSQLSchemaMaintenance.dropSchema(url: url, schema: schema)
                try? PostgreSQLSchemaMaintenance.dropSchema(url: url, schema: baselineSchema)
            })
        #else
        _ = url
        throw CLIFailure(
            code: "postgresql_not_built",
            message: "this paypanel was built without PostgreSQL support, so it cannot benchmark a postgresql:// database: build it with 'swift build --traits PostgreSQL'")
        #endif
    }

    #if PostgreSQL
    final class RawPostgreSQL: CommitBaseline {
        let baseline: PostgreSQLCommitBaseline
        init(_ baseline: PostgreSQLCommitBaseline) { self.baseline = baseline }
        func write(transactions: Int) throws { try baseline.write(transactions: transactions) }
    }
    #endif

    /// "lifecycle 123/1000" on standard error, redrawn in place, only on a terminal.
    final class Progress: @unchecked Sendable {
        // Only touched from the benchmark's sequential loop.
        let total: Int
        let enabled: Bool
        private var shownPercent = -1

        init(total: Int, enabled: Bool) {
            self.total = total
            self.enabled = enabled
        }

        func update(_ done: Int) {
            guard enabled else { return }
            let percent = done * 100 / total
            guard percent != shownPercent else { return }
            shownPercent = percent
            FileHandle.standardError.write(Data("\r\u{1B}[Klifecycle \(done)/\(total) payments (\(percent)%)".utf8))
        }

        func finish() {
            guard enabled else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
