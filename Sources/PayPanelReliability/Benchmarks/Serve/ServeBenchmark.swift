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
/// capture. For each server count the bench starts that many `serve` children on one fresh
/// database of their own (a SQLite file, or a PostgreSQL schema), all before measuring. For
/// each client count, `clients` concurrent clients share `payments` payments per side: over
/// HTTP each client is a thread with one keep-alive connection of its own, to that set's
/// servers round-robin; in-process each is a task calling `CheckoutDesk` and `PaymentService`
/// directly, on a stack built as `serve` builds its own (a service with the zero-latency mock
/// processor, a desk on a second store of another fresh database of the same kind), preferring
/// eight threads of its own as the server's handlers do (`InProcessExecutor`). The sides (in-
/// process, then each server set) take turns in `rounds` slices, the order rotating each round,
/// so a change of load on the machine slows every side alike. Tokens are sealed before each
/// slice, outside the timed part. The in-process side is measured once per client count; each
/// server count's figures are compared with it.
///
/// Then, on the first server set's first server, the bench opens `idleConnections` keep-alive
/// connections, each after one `GET /healthz`, and reads the child's `VmRSS` from /proc while
/// they are all open.
public struct ServeBenchmark: Sendable {
    public let payments: Int
    public let clientCounts: [Int]
    /// How many `serve` children share one database, one set per count (default: one server).
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

    /// One set of servers on one database, and the API key every one of them accepts.
    struct ServerSet {
        let servers: [BenchmarkServerProcess]
        let apiKey: String
        var ports: [Int] { servers.map(\.port) }
    }

    /// Runs everything; `progress` hears one line per step.
    public func run(progress: @Sendable (String) -> Void = { _ in }) async throws -> ServeBenchmarkResult {
        try Self.raiseDescriptorLimit(to: idleConnections + (clientCounts.max() ?? 1) + 256)
        var sets: [ServerSet] = []
        do {
            // Every server starts before the bench opens its idle connections, so a failed start
            // is reported before thousands of descriptors are open.
            for (index, serverCount) in serverCounts.enumerated() {
                sets.append(try startSet(index: index, serverCount: serverCount, progress: progress))
            }
            let result = try await measure(sets, progress: progress)
            return result
        } catch {
            for set in sets { for server in set.servers { _ = server.stop() } }
            throw error
        }
    }

    private func startSet(index: Int, serverCount: Int, progress: @Sendable (String) -> Void) throws -> ServerSet {
        let setDirectory = directory + "/http-\(index + 1)-\(serverCount)-servers"
        try FileManager.default.createDirectory(atPath: setDirectory, withIntermediateDirectories: true)
        let shared = try database.makeFresh("http_\(index + 1)_\(serverCount)", setDirectory)
        let keys = APIKeyRing(store: try shared.stores.openAPIKeyStore())
        let apiKey = try keys.create(name: "bench", at: SystemClock().now()).key
        var servers: [BenchmarkServerProcess] = []
        do {
            for number in 1...serverCount {
                progress("starting paypanel serve \(number) of \(serverCount)")
                let serverDirectory = setDirectory + "/server-\(number)"
                try FileManager.default.createDirectory(atPath: serverDirectory, withIntermediateDirectories: true)
                servers.append(try BenchmarkServerProcess(
                    executable: serverExecutable, directory: serverDirectory, database: shared.argument, apiKey: apiKey))
            }
        } catch {
            for server in servers { _ = server.stop() }
            throw error
        }
        return ServerSet(servers: servers, apiKey: apiKey)
    }

    private func measure(_ sets: [ServerSet], progress: @Sendable (String) -> Void) async throws -> ServeBenchmarkResult {
        let residentAtStart = sets[0].servers[0].memory().resident
        let clock = SystemClock()
        let inProcessDirectory = directory + "/in-process"
        try FileManager.default.createDirectory(atPath: inProcessDirectory, withIntermediateDirectories: true)
        let fresh = try database.makeFresh("in_process", inProcessDirectory)
        let service = PaymentService(
            store: try fresh.stores.openPaymentStore(),
            processor: try MockProcessor(ledgerPath: inProcessDirectory + "/processor.sqlite", clock: clock), clock: clock)
        let desk = CheckoutDesk(service: service, clock: clock)
        let decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())
        let executor = InProcessExecutor()
        defer { executor.finish() }

        // One payment each way first (one per server): files created, statements prepared, code paged in.
        let servers = sets.flatMap { set in set.servers.map { (port: $0.port, apiKey: set.apiKey) } }
        let warmUp = try ServeBenchmarkFlow.sealTokens(1 + servers.count)
        _ = await ServeBenchmarkRunners.inProcess(
            desk: desk, service: service, decryptor: decryptor, clients: 1, tokens: [warmUp[0]], executor: executor)
        for (index, server) in servers.enumerated() {
            _ = await ServeBenchmarkRunners.overHTTP(ports: [server.port], apiKey: server.apiKey, clients: 1, tokens: [warmUp[index + 1]])
        }

        // figures[set][client count index]
        var figures = Array(repeating: [ServeClientFigures](), count: sets.count)
        for clients in clientCounts {
            var http = Array(repeating: ServeRunMeasurement(), count: sets.count)
            var inProcess = ServeRunMeasurement()
            for round in 0..<rounds {
                let slice = payments / rounds + (round < payments % rounds ? 1 : 0)
                progress("\(clients) client(s), round \(round + 1)/\(rounds): \(slice) payments per side")
                let tokens = try ServeBenchmarkFlow.sealTokens((1 + sets.count) * slice)
                // Side 0 is in-process, side k the k-th server set; the first side moves each
                // round, so none always runs on a warmer (or quieter) machine.
                let sides = Array(0...sets.count)
                for side in sides[(round % sides.count)...] + sides[..<(round % sides.count)] {
                    let share = Array(tokens[(side * slice)..<((side + 1) * slice)])
                    if side == 0 {
                        inProcess.add(await ServeBenchmarkRunners.inProcess(
                            desk: desk, service: service, decryptor: decryptor, clients: clients, tokens: share, executor: executor))
                    } else {
                        let set = sets[side - 1]
                        let cpuBefore = set.servers.map { $0.cpuSeconds() }.reduce(0, +)
                        let switchesBefore = set.servers.map { $0.contextSwitches() }.reduce(0, +)
                        let threadsBefore = set.servers.map { $0.threadCPUSeconds() }
                        var measured = await ServeBenchmarkRunners.overHTTP(ports: set.ports, apiKey: set.apiKey, clients: clients, tokens: share)
                        measured.threadCPUSeconds = zip(set.servers, threadsBefore).map { server, before in
                            ProcCPUTime.byKind(from: before, to: server.threadCPUSeconds())
                        }.reduce(into: [:]) { sum, kinds in sum.merge(kinds, uniquingKeysWith: +) }
                        measured.serverCPUSeconds = set.servers.map { $0.cpuSeconds() }.reduce(0, +) - cpuBefore
                        measured.serverContextSwitches = set.servers.map { $0.contextSwitches() }.reduce(0, +) - switchesBefore
                        http[side - 1].add(measured)
                    }
                }
            }
            for (index, set) in sets.enumerated() {
                figures[index].append(ServeClientFigures(
                    clients: clients, servers: set.servers.count, http: ServeSideFigures(http[index]), inProcess: ServeSideFigures(inProcess)))
            }
        }

        progress("opening \(idleConnections) idle keep-alive connections")
        let idle = try await Self.holdIdleConnections(idleConnections, server: sets[0].servers[0], residentAtStart: residentAtStart)
        progress("stopping paypanel serve")
        var exitStatus: Int32 = 0
        for set in sets {
            for server in set.servers {
                let status = server.stop()
                if exitStatus == 0 { exitStatus = status }
            }
        }
        return ServeBenchmarkResult(store: database.kind, runs: figures.flatMap { $0 }, idle: idle, serverExitStatus: exitStatus)
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
