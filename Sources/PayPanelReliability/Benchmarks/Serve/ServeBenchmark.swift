import Foundation
import Glibc
import MockProcessor
import PayPanel
import PayPanelDemo

/// `paypanel bench serve`: the checkout flow over HTTP against real `paypanel serve` child
/// processes (one, or several on one database), against the same flow called in-process, in
/// the same run.
///
/// A payment is create checkout (manual capture) → pay with a sealed Apple Pay token →
/// capture. For each server count, the bench starts that many `serve` children on one fresh
/// database (a SQLite file, or a PostgreSQL schema of its own); for each client count,
/// `clients` concurrent clients share `payments` payments: over HTTP each client is a thread
/// with one keep-alive connection of its own, to the servers round-robin; in-process each is
/// a task calling `CheckoutDesk` and `CheckoutService` directly, on a stack built as `serve`
/// builds its own (a service with the zero-latency mock processor, a desk on a second store
/// of another fresh database of the same kind), preferring eight threads of its own as the
/// server's handlers do (`InProcessExecutor`). The two sides alternate in `rounds` slices
/// (in-process first in even rounds, HTTP first in odd ones), so a change of load on the
/// machine slows both alike. Tokens are sealed before each slice, outside the timed part.
///
/// Then, on the first server count's first server, the bench opens `idleConnections`
/// keep-alive connections, each after one `GET /healthz`, and reads the child's `VmRSS` from
/// /proc while they are all open.
public struct ServeBenchmark: Sendable {
    public let payments: Int
    public let clientCounts: [Int]
    /// How many `serve` children share the database, one pass each (default: one).
    public let serverCounts: [Int]
    public let idleConnections: Int
    public let rounds: Int
    /// Where the databases and the server's output go; the caller creates and removes it.
    public let directory: String
    /// The `paypanel` binary to run as `paypanel serve`.
    public let serverExecutable: String
    /// Which kind of payments database the servers and the in-process side use.
    public let database: ServeBenchmarkDatabase

    public init(
        payments: Int, clientCounts: [Int], serverCounts: [Int] = [1], idleConnections: Int, rounds: Int = 2, directory: String,
        serverExecutable: String, database: ServeBenchmarkDatabase = .sqlite
    ) {
        self.payments = max(1, payments)
        self.clientCounts = clientCounts.isEmpty ? [1] : clientCounts.map { max(1, $0) }
        self.serverCounts = serverCounts.isEmpty ? [1] : serverCounts.map { max(1, $0) }
        self.idleConnections = max(0, idleConnections)
        self.rounds = max(1, min(rounds, self.payments))
        self.directory = directory
        self.serverExecutable = serverExecutable
        self.database = database
    }

    /// Runs everything; `progress` hears one line per step.
    public func run(progress: @Sendable (String) -> Void = { _ in }) async throws -> ServeBenchmarkResult {
        try Self.raiseDescriptorLimit(to: idleConnections + (clientCounts.max() ?? 1) + 256)
        var runs: [ServeClientFigures] = []
        var idle: ServeIdleFigures?
        var exitStatus: Int32 = 0
        for (pass, serverCount) in serverCounts.enumerated() {
            let passDirectory = directory + "/servers-\(serverCount)-pass-\(pass + 1)"
            for side in ["http", "in-process"] {
                try FileManager.default.createDirectory(atPath: passDirectory + "/" + side, withIntermediateDirectories: true)
            }
            let shared = try database.makeFresh("http_\(serverCount)_\(pass + 1)", passDirectory + "/http")
            let clock = SystemClock()
            let keys = APIKeyRing(store: try shared.stores.openAPIKeyStore())
            let apiKey = try keys.create(name: "bench", at: clock.now()).key
            var servers: [BenchmarkServerProcess] = []
            do {
                for index in 0..<serverCount {
                    progress("starting paypanel serve \(index + 1) of \(serverCount)")
                    let serverDirectory = passDirectory + "/http/server-\(index + 1)"
                    try FileManager.default.createDirectory(atPath: serverDirectory, withIntermediateDirectories: true)
                    servers.append(try BenchmarkServerProcess(
                        executable: serverExecutable, directory: serverDirectory, database: shared.argument, apiKey: apiKey))
                }
                let measured = try await measure(
                    servers, apiKey: apiKey, inProcess: try database.makeFresh("in_process_\(serverCount)_\(pass + 1)", passDirectory + "/in-process"),
                    inProcessLedger: passDirectory + "/in-process/processor.sqlite", holdingIdle: pass == 0, progress: progress)
                runs += measured.runs
                idle = idle ?? measured.idle
                progress("stopping paypanel serve")
                for server in servers {
                    let status = server.stop()
                    if exitStatus == 0 { exitStatus = status }
                }
            } catch {
                for server in servers { _ = server.stop() }
                throw error
            }
        }
        return ServeBenchmarkResult(
            store: database.kind, runs: runs,
            idle: idle ?? ServeIdleFigures(connections: 0, residentAtStartBytes: 0, residentBeforeBytes: 0, residentBytes: 0, peakBytes: 0, freshRequestServed: false),
            serverExitStatus: exitStatus)
    }

    private func measure(
        _ servers: [BenchmarkServerProcess], apiKey: String, inProcess fresh: ServeBenchmarkDatabase.Fresh, inProcessLedger: String,
        holdingIdle: Bool,
        progress: @Sendable (String) -> Void
    ) async throws -> (runs: [ServeClientFigures], idle: ServeIdleFigures?) {
        let residentAtStart = servers[0].memory().resident
        let clock = SystemClock()
        let service = CheckoutService(
            store: try fresh.stores.openPaymentStore(),
            processor: try MockProcessor(ledgerPath: inProcessLedger, clock: clock),
            clock: clock)
        let desk = CheckoutDesk(store: try fresh.stores.openCheckoutStore(), service: service, clock: clock)
        let decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())
        let executor = InProcessExecutor()
        defer { executor.finish() }
        let ports = servers.map(\.port)

        // One payment each way first (one per server): files created, statements prepared, code paged in.
        let warmUp = try ServeBenchmarkFlow.sealTokens(1 + ports.count)
        _ = await ServeBenchmarkRunners.inProcess(
            desk: desk, service: service, decryptor: decryptor, clients: 1, tokens: [warmUp[0]], executor: executor)
        for (index, port) in ports.enumerated() {
            _ = await ServeBenchmarkRunners.overHTTP(ports: [port], apiKey: apiKey, clients: 1, tokens: [warmUp[index + 1]])
        }

        var runs: [ServeClientFigures] = []
        for clients in clientCounts {
            var http = ServeRunMeasurement()
            var inProcess = ServeRunMeasurement()
            for round in 0..<rounds {
                let slice = payments / rounds + (round < payments % rounds ? 1 : 0)
                progress("\(servers.count) server(s), \(clients) client(s), round \(round + 1)/\(rounds): \(slice) payments each way")
                let tokens = try ServeBenchmarkFlow.sealTokens(2 * slice)
                // Alternate which side goes first, so neither always runs on a warmer machine.
                for httpSide in round % 2 == 0 ? [false, true] : [true, false] {
                    if httpSide {
                        http.add(await ServeBenchmarkRunners.overHTTP(
                            ports: ports, apiKey: apiKey, clients: clients, tokens: Array(tokens[slice...])))
                    } else {
                        inProcess.add(await ServeBenchmarkRunners.inProcess(
                            desk: desk, service: service, decryptor: decryptor, clients: clients, tokens: Array(tokens[..<slice]),
                            executor: executor))
                    }
                }
            }
            runs.append(ServeClientFigures(
                clients: clients, servers: servers.count, http: ServeSideFigures(http), inProcess: ServeSideFigures(inProcess)))
        }

        guard holdingIdle else { return (runs, nil) }
        progress("opening \(idleConnections) idle keep-alive connections")
        let idle = try await Self.holdIdleConnections(idleConnections, server: servers[0], residentAtStart: residentAtStart)
        return (runs, idle)
    }

    /// Opens `count` connections, each making one `GET /healthz` and then waiting; measures
    /// the server with all of them open, checks a new connection is still served, closes them.
    private static func holdIdleConnections(
        _ count: Int, server: BenchmarkServerProcess, residentAtStart: Int
    ) async throws -> ServeIdleFigures {
        let port = server.port
        let before = server.memory().resident
        return try await onThread {
            var connections: [BenchmarkHTTPClient] = []
            connections.reserveCapacity(count)
            for _ in 0..<count {
                let client = try BenchmarkHTTPClient(port: port)
                let response = try client.request("GET", "/healthz", bearer: nil, body: nil)
                guard response.status == 200 else {
                    throw ServeBenchmarkError(code: "bench_idle_refused", message: "GET /healthz on idle connection \(connections.count + 1) answered HTTP \(response.status)")
                }
                connections.append(client)
            }
            // Let the server settle (buffers released after the last response) before reading.
            usleep(200_000)
            let memory = server.memory()
            let fresh = (try? BenchmarkHTTPClient(port: port).request("GET", "/healthz", bearer: nil, body: nil))?.status == 200
            withExtendedLifetime(connections) {}
            return ServeIdleFigures(
                connections: count, residentAtStartBytes: residentAtStart, residentBeforeBytes: before, residentBytes: memory.resident, peakBytes: memory.peak,
                freshRequestServed: fresh)
        }
    }

    /// Raises this process's soft descriptor limit to `needed` (the child inherits it), up
    /// to the hard limit; refuses to run when even that is too low.
    static func raiseDescriptorLimit(to needed: Int) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(needed) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(needed))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        guard limit.rlim_cur >= rlim_t(needed) else {
            throw ServeBenchmarkError(
                code: "bench_descriptor_limit",
                message: "the idle connections need \(needed) open files but this process may open only \(limit.rlim_cur) (hard limit \(limit.rlim_max)): raise it with 'ulimit -n \(needed)' or ask for fewer idle connections")
        }
    }

    /// Runs blocking `body` on a thread of its own and returns its result.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.start()
        }
    }
}
