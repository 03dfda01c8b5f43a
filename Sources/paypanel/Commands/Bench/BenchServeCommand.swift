import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel bench serve [--payments N] [--clients 1,8,32] [--servers 1,2] [--db postgresql://…] [--idle N] [--rounds N] [--directory PATH] [--json]`
struct BenchServeCommand: CLICommand {
    static let payments = OptionSpec.value("--payments", "n", help: "Payments per client count and side (default: \(defaultPayments); 1 to 100000).")
    static let clients = OptionSpec.value("--clients", "list", help: "Concurrent clients, comma-separated (default: 1,8,32; each 1 to 256).")
    static let idle = OptionSpec.value("--idle", "n", help: "Idle keep-alive connections held open for the memory figure (default: 1000; 0 to 4000).")
    static let rounds = OptionSpec.value("--rounds", "n", help: "Interleaved slices of HTTP and in-process runs per client count (default: 2).")
    static let directory = OptionSpec.value("--directory", "path", help: "Where to create the temporary files (default: the system's temporary directory).")
    static let servers = OptionSpec.value(
        "--servers", "list", help: "How many 'serve' processes share one database, comma-separated, one set each, measured in turn (default: 1; each 1 to 8).")
    static let database = OptionSpec.value(
        "--db", "url",
        help: "Run the servers and the in-process side on PostgreSQL at this postgresql:// URL, a fresh schema per server set and one in-process, dropped afterwards (a build with --traits PostgreSQL).")

    static let spec = CommandSpec(
        name: "serve",
        abstract: "Measure the checkout flow over HTTP against 'paypanel serve' and against the same flow in-process.",
        discussion: """
            Starts this binary as 'paypanel serve --port 0 --test-root' (zero-latency mock processor) on fresh \
            files in a temporary directory, then, for each client count, runs --payments payments — create a \
            checkout (manual capture), pay it with an Apple Pay token sealed by the test identity, capture it — \
            with that many concurrent HTTP clients (one keep-alive connection each), and the same flow called \
            in-process on CheckoutDesk and PaymentService, interleaved in --rounds slices. Prints payments per \
            second, p50/p99 latency of a whole payment, errors, and the ratio HTTP / in-process. Then holds --idle \
            keep-alive connections open (each after one GET /healthz) and reads the server's resident memory \
            (VmRSS) from /proc. Exits 1 when any payment failed. Build with 'swift build -c release' for figures \
            worth recording. With --servers 1,2 each count is a set of that many 'serve' children on one \
            fresh database of its own, the HTTP clients spread over a set's servers round-robin (each its own \
            connection to one server, as a load balancer spreads connections); the sets and the in-process side \
            take turns in every round, so the machine's load falls on all alike. With --db postgresql://… every \
            set and the in-process side get a fresh schema of that database (dropped afterwards); each server \
            keeps its own mock-processor ledger file.
            """,
        options: [payments, clients, servers, database, idle, rounds, directory, CommonOptions.json])

    static let defaultPayments = 400

    let paymentCount: Int
    let clientCounts: [Int]
    let serverCounts: [Int]
    /// The fresh schemas of `--db` (nil: SQLite files), refused here when `--db` is no PostgreSQL URL.
    let schemas: PostgreSQLRunSchemas?
    let idleCount: Int
    let roundCount: Int
    let parent: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        paymentCount = try arguments.integer(Self.payments.name, in: 1...100_000) ?? Self.defaultPayments
        idleCount = try arguments.integer(Self.idle.name, in: 0...4000) ?? 1000
        roundCount = try arguments.integer(Self.rounds.name, in: 1...100) ?? 2
        parent = arguments.value(Self.directory.name)
        json = arguments.flag(CommonOptions.json.name)
        clientCounts = try Self.counts(arguments.value(Self.clients.name) ?? "1,8,32", option: Self.clients.name, what: "client", in: 1...256, example: "1,8,32")
        serverCounts = try Self.counts(arguments.value(Self.servers.name) ?? "1", option: Self.servers.name, what: "server", in: 1...8, example: "1,2")
        schemas = try arguments.value(Self.database.name).map {
            try PostgreSQLRunSchemas(database: $0, prefix: "bench_serve", command: "bench serve", fallback: "the benchmark runs on SQLite files")
        }
    }

    /// A comma-separated list of counts, each within `range`.
    static func counts(_ list: String, option: String, what: String, in range: ClosedRange<Int>, example: String) throws -> [Int] {
        let parsed = list.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil && range.contains($0!) }) else {
            throw UsageError("'\(option)' takes comma-separated \(what) counts from \(range.lowerBound) to \(range.upperBound), such as \(example), not '\(list)'")
        }
        return parsed.compactMap { $0 }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let console = context.console
        defer { schemas?.dropAll() }
        let result = try await BenchRun.inFreshDirectory(console, parent: parent) { directory in
            let benchmark = ServeBenchmark(
                payments: paymentCount, clientCounts: clientCounts, serverCounts: serverCounts, idleConnections: idleCount, rounds: roundCount,
                directory: directory, serverExecutable: try ReliabilityOptions.executablePath(),
                database: try schemas.map(Self.postgreSQLDatabase) ?? .sqlite)
            return try await benchmark.run(progress: BenchRun.progress(console, label: "bench serve"))
        }
        ProgressLine(console: console).clear()
        if json {
            console.printJSON(result.json)
        } else {
            render(result, to: console)
        }
        return result.errors == 0 ? .success : .failure
    }

    /// Fresh schemas of the `--db` database, one per server set and one in-process.
    static func postgreSQLDatabase(_ schemas: PostgreSQLRunSchemas) throws -> ServeBenchmarkDatabase {
        #if PostgreSQL
        return ServeBenchmarkDatabase(kind: "postgresql") { label, _ in
            let fresh = try schemas.fresh(label, clock: SystemClock())
            return ServeBenchmarkDatabase.Fresh(argument: fresh.argument, stores: fresh.stores)
        }
        #else
        // Not reached: without the trait, PostgreSQLRunSchemas refuses the URL.
        throw CLIFailure(code: "postgresql_not_built", message: "this paypanel was built without PostgreSQL support: build it with 'swift build --traits PostgreSQL'")
        #endif
    }

    private func render(_ result: ServeBenchmarkResult, to console: Console) {
        let number = { (value: Double, places: Int) in String(format: "%.\(places)f", value) }
        console.print("Checkout flow (create checkout → pay with an Apple Pay token → capture) on \(result.store == "postgresql" ? "PostgreSQL" : "SQLite"), \(paymentCount) payments per client count and side")
        console.print("  servers  clients  HTTP pay/s  p50 ms  p99 ms  errors  server CPU ms/pay  service ms/pay (busy)  switches/pay   in-process pay/s  p50 ms  p99 ms  errors   ratio")
        for run in result.runs {
            let columns = [
                pad(String(run.servers), 7), pad(String(run.clients), 7), pad(number(run.http.paymentsPerSecond, 1), 10), pad(number(run.http.p50Milliseconds, 2), 6),
                pad(number(run.http.p99Milliseconds, 2), 6), pad(String(run.http.errors), 6),
                pad(run.http.serverCPUMillisecondsPerPayment.map { number($0, 2) } ?? "-", 17),
                // Busy: one server's payment-service thread's CPU time as a share of the wall
                // time (ms per payment × its server's payments per second ÷ 1000).
                pad(run.http.serviceThreadCPUMillisecondsPerPayment.map { milliseconds in
                    let busy = milliseconds * run.http.paymentsPerSecond / Double(run.servers) / 1000
                    return "\(number(milliseconds, 2)) (\(number(busy * 100, 0)) %)"
                } ?? "-", 21),
                pad(run.http.serverContextSwitchesPerPayment.map { number($0, 1) } ?? "-", 12),
                pad(number(run.inProcess.paymentsPerSecond, 1), 17), pad(number(run.inProcess.p50Milliseconds, 2), 6),
                pad(number(run.inProcess.p99Milliseconds, 2), 6), pad(String(run.inProcess.errors), 6), pad(number(run.ratio, 3), 6),
            ]
            console.print("  " + columns.joined(separator: "  "))
        }
        for run in result.runs {
            // Where the server's CPU per payment goes, by kind of thread (those above 0.005 ms).
            guard let threads = run.http.threadCPUMillisecondsPerPayment else { continue }
            let shown = threads.filter { $0.milliseconds >= 0.005 }.map { "\($0.kind) \(number($0.milliseconds, 2))" }
            console.print("  server CPU ms/pay by thread at \(run.servers) server(s), \(run.clients) client(s): \(shown.joined(separator: ", "))")
        }
        for run in result.runs {
            if let error = run.http.firstError { console.print("  first HTTP error at \(run.servers) server(s), \(run.clients) client(s): \(error)") }
            if let error = run.inProcess.firstError { console.print("  first in-process error at \(run.servers) server(s), \(run.clients) client(s): \(error)") }
        }
        let mebibytes = { (bytes: Int) in number(Double(bytes) / 1_048_576, 1) }
        console.print("Server memory: \(mebibytes(result.idle.residentBytes)) MiB resident with \(result.idle.connections) idle keep-alive connections (\(mebibytes(result.idle.residentAtStartBytes)) MiB at start, \(mebibytes(result.idle.residentBeforeBytes)) MiB after the runs, peak \(mebibytes(result.idle.peakBytes)) MiB); a new connection was \(result.idle.freshRequestServed ? "" : "not ")served meanwhile")
        let verdict = { (met: Bool?) in met.map { $0 ? "met" : "NOT met" } ?? "not measured" }
        console.print("Targets: 1 client ≥ \(ServeBenchmarkResult.oneClientRatioTarget) of in-process: \(verdict(result.oneClientRatioMet)); most clients more payments/s than 1: \(verdict(result.scalesWithClients)); most servers ahead of one at the most clients: \(verdict(result.scalesWithServers)); no errors: \(verdict(result.errors == 0)); ≤ 64 MiB resident: \(verdict(result.residentMet))")
        console.print("Server exit status after SIGTERM: \(result.serverExitStatus)")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
