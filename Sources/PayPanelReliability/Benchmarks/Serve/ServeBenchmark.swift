import Foundation
import Glibc
import MockProcessor
import PayPanel
import PayPanelDemo

/// `paypanel bench serve`: the checkout flow over HTTP against a real `paypanel serve` child
/// process, against the same flow called in-process, in the same run.
///
/// A payment is create checkout (manual capture) → pay with a sealed Apple Pay token →
/// capture. For each client count, `clients` concurrent clients share `payments` payments:
/// over HTTP each client is a thread with one keep-alive connection of its own; in-process
/// each is a task calling `CheckoutDesk` and `CheckoutService` directly, on a stack built as
/// `serve` builds its own (a service with the zero-latency mock processor, a desk on a second
/// connection to the same database), preferring eight threads of its own as the server's
/// handlers do (`InProcessExecutor`). The two sides alternate in `rounds` slices (in-process
/// first in even rounds, HTTP first in odd ones), so a change of load on the machine slows
/// both alike. Tokens are sealed before each slice, outside the timed part.
///
/// Then the bench opens `idleConnections` keep-alive connections to the server, each after
/// one `GET /healthz`, and reads the child's `VmRSS` from /proc while they are all open.
public struct ServeBenchmark: Sendable {
    public let payments: Int
    public let clientCounts: [Int]
    public let idleConnections: Int
    public let rounds: Int
    /// Where the databases and the server's output go; the caller creates and removes it.
    public let directory: String
    /// The `paypanel` binary to run as `paypanel serve`.
    public let serverExecutable: String

    public init(payments: Int, clientCounts: [Int], idleConnections: Int, rounds: Int = 2, directory: String, serverExecutable: String) {
        self.payments = max(1, payments)
        self.clientCounts = clientCounts.isEmpty ? [1] : clientCounts.map { max(1, $0) }
        self.idleConnections = max(0, idleConnections)
        self.rounds = max(1, min(rounds, self.payments))
        self.directory = directory
        self.serverExecutable = serverExecutable
    }

    /// Runs everything; `progress` hears one line per step.
    public func run(progress: @Sendable (String) -> Void = { _ in }) async throws -> ServeBenchmarkResult {
        try Self.raiseDescriptorLimit(to: idleConnections + (clientCounts.max() ?? 1) + 256)
        for side in ["http", "in-process"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + side, withIntermediateDirectories: true)
        }
        progress("starting paypanel serve")
        let server = try BenchmarkServerProcess(executable: serverExecutable, directory: directory + "/http")
        do {
            let result = try await measure(server, progress: progress)
            return result
        } catch {
            _ = server.stop()
            throw error
        }
    }

    private func measure(_ server: BenchmarkServerProcess, progress: @Sendable (String) -> Void) async throws -> ServeBenchmarkResult {
        let residentAtStart = server.memory().resident
        let clock = SystemClock()
        let inProcessPath = directory + "/in-process"
        let service = CheckoutService(
            store: try SQLitePaymentStore(path: inProcessPath + "/payments.sqlite", clock: clock),
            processor: try MockProcessor(ledgerPath: inProcessPath + "/processor.sqlite", clock: clock), clock: clock)
        let desk = CheckoutDesk(store: try SQLitePaymentStore(path: inProcessPath + "/payments.sqlite", clock: clock), service: service, clock: clock)
        let decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())
        let executor = InProcessExecutor()
        defer { executor.finish() }

        // One payment each way first: files created, statements prepared, code paged in.
        let warmUp = try ServeBenchmarkFlow.sealTokens(2)
        _ = await ServeBenchmarkRunners.inProcess(
            desk: desk, service: service, decryptor: decryptor, clients: 1, tokens: [warmUp[0]], executor: executor)
        _ = await ServeBenchmarkRunners.overHTTP(port: server.port, apiKey: server.apiKey, clients: 1, tokens: [warmUp[1]])

        var runs: [ServeClientFigures] = []
        for clients in clientCounts {
            var http = ServeRunMeasurement()
            var inProcess = ServeRunMeasurement()
            for round in 0..<rounds {
                let slice = payments / rounds + (round < payments % rounds ? 1 : 0)
                progress("\(clients) client(s), round \(round + 1)/\(rounds): \(slice) payments each way")
                let tokens = try ServeBenchmarkFlow.sealTokens(2 * slice)
                // Alternate which side goes first, so neither always runs on a warmer machine.
                for httpSide in round % 2 == 0 ? [false, true] : [true, false] {
                    if httpSide {
                        http.add(await ServeBenchmarkRunners.overHTTP(
                            port: server.port, apiKey: server.apiKey, clients: clients, tokens: Array(tokens[slice...])))
                    } else {
                        inProcess.add(await ServeBenchmarkRunners.inProcess(
                            desk: desk, service: service, decryptor: decryptor, clients: clients, tokens: Array(tokens[..<slice]),
                            executor: executor))
                    }
                }
            }
            runs.append(ServeClientFigures(clients: clients, http: ServeSideFigures(http), inProcess: ServeSideFigures(inProcess)))
        }

        progress("opening \(idleConnections) idle keep-alive connections")
        let idle = try await Self.holdIdleConnections(idleConnections, server: server, residentAtStart: residentAtStart)
        progress("stopping paypanel serve")
        let exitStatus = server.stop()
        return ServeBenchmarkResult(runs: runs, idle: idle, serverExitStatus: exitStatus)
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
