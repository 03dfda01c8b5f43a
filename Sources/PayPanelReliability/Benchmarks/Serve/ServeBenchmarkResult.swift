import Foundation
import PayPanel

/// The figures of one side (HTTP or in-process) at one client count.
public struct ServeSideFigures: Sendable {
    public let payments: Int
    public let paymentsPerSecond: Double
    /// Latency of one whole payment (create → pay → capture), in milliseconds.
    public let p50Milliseconds: Double
    public let p99Milliseconds: Double
    /// Payments that did not end captured (any error response counts).
    public let errors: Int
    /// What the first error was (a step, a status and an error code; never a body).
    public let firstError: String?
    /// The server's CPU time per payment (user + system of the serve processes, from /proc), in
    /// milliseconds; nil for the in-process side.
    public let serverCPUMillisecondsPerPayment: Double?
    /// The server threads' context switches per payment (from /proc): how often a payment's
    /// work was handed from one thread to another. nil for the in-process side.
    public let serverContextSwitchesPerPayment: Double?
    /// The `payment-service` thread's CPU time per payment (from /proc), in milliseconds: the
    /// one thread every payment of a server passes through, so with `paymentsPerSecond` it says
    /// how near that thread is to bounding the rate. nil for the in-process side.
    public let serviceThreadCPUMillisecondsPerPayment: Double?
    /// The server's CPU time per payment by kind of thread (`ProcCPUTime.byKind`: the eight
    /// `handler-N` threads are `handler`), most first, in milliseconds: where a payment's CPU
    /// goes. nil for the in-process side.
    public let threadCPUMillisecondsPerPayment: [(kind: String, milliseconds: Double)]?

    init(_ measurement: ServeRunMeasurement) {
        let sorted = measurement.latencies.sorted()
        payments = sorted.count
        paymentsPerSecond = measurement.seconds > 0 ? Double(sorted.count - min(sorted.count, measurement.errors)) / measurement.seconds : 0
        p50Milliseconds = BenchmarkStatistics.percentile(sorted, 0.50) * 1000
        p99Milliseconds = BenchmarkStatistics.percentile(sorted, 0.99) * 1000
        errors = measurement.errors
        firstError = measurement.firstError
        serverCPUMillisecondsPerPayment = measurement.serverCPUSeconds.flatMap { cpu in
            sorted.isEmpty ? nil : cpu * 1000 / Double(sorted.count)
        }
        serverContextSwitchesPerPayment = measurement.serverContextSwitches.flatMap { switches in
            sorted.isEmpty ? nil : Double(switches) / Double(sorted.count)
        }
        // The `payment-service` thread (`PaymentService`) is one kind among the threads.
        serviceThreadCPUMillisecondsPerPayment = measurement.threadCPUSeconds.flatMap { kinds in
            sorted.isEmpty ? nil : (kinds[PaymentService.threadName] ?? 0) * 1000 / Double(sorted.count)
        }
        threadCPUMillisecondsPerPayment = measurement.threadCPUSeconds.flatMap { kinds in
            sorted.isEmpty ? nil : kinds.map { (kind: $0.key, milliseconds: $0.value * 1000 / Double(sorted.count)) }
                .sorted { $0.milliseconds > $1.milliseconds || ($0.milliseconds == $1.milliseconds && $0.kind < $1.kind) }
        }
    }


    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("payments", .number(payments)), ("paymentsPerSecond", LifecycleBenchmarkResult.decimal(paymentsPerSecond, places: 1)),
            ("p50Ms", LifecycleBenchmarkResult.decimal(p50Milliseconds, places: 2)),
            ("p99Ms", LifecycleBenchmarkResult.decimal(p99Milliseconds, places: 2)), ("errors", .number(errors)),
        ]
        if let cpu = serverCPUMillisecondsPerPayment { members.append(("serverCpuMsPerPayment", LifecycleBenchmarkResult.decimal(cpu, places: 2))) }
        if let switches = serverContextSwitchesPerPayment {
            members.append(("serverContextSwitchesPerPayment", LifecycleBenchmarkResult.decimal(switches, places: 1)))
        }
        if let service = serviceThreadCPUMillisecondsPerPayment {
            members.append(("serviceThreadCpuMsPerPayment", LifecycleBenchmarkResult.decimal(service, places: 2)))
        }
        if let threads = threadCPUMillisecondsPerPayment {
            members.append(("serverThreadCpuMsPerPayment", .orderedObject(threads.map { ($0.kind, LifecycleBenchmarkResult.decimal($0.milliseconds, places: 3)) })))
        }
        if let firstError { members.append(("firstError", .string(firstError))) }
        return .orderedObject(members)
    }
}

/// Both sides at one client count (and one server count), and their ratio.
public struct ServeClientFigures: Sendable {
    public let clients: Int
    /// How many `serve` processes on one database the HTTP clients were spread over.
    public let servers: Int
    public let http: ServeSideFigures
    public let inProcess: ServeSideFigures
    /// HTTP payments/s ÷ in-process payments/s.
    public var ratio: Double { inProcess.paymentsPerSecond > 0 ? http.paymentsPerSecond / inProcess.paymentsPerSecond : 0 }
}

/// The server's memory with idle keep-alive connections open.
public struct ServeIdleFigures: Sendable {
    public let connections: Int
    /// VmRSS right after the server started, before any payment.
    public let residentAtStartBytes: Int
    /// VmRSS after the timed runs, before the idle connections were opened.
    public let residentBeforeBytes: Int
    /// VmRSS with every idle connection open (each has made one request and waits).
    public let residentBytes: Int
    /// VmHWM: the most the server held at any moment of the run.
    public let peakBytes: Int
    /// Whether a new connection was still served while the idle ones were open.
    public let freshRequestServed: Bool
}

/// What `paypanel bench serve` measured.
public struct ServeBenchmarkResult: Sendable, JSONRepresentable {
    public static let oneClientRatioTarget = 0.7
    public static let residentTargetBytes = 64 * 1024 * 1024

    /// `sqlite` or `postgresql`.
    public let store: String
    public let runs: [ServeClientFigures]
    public let idle: ServeIdleFigures
    /// The server's exit status after SIGTERM (0 is a clean shutdown).
    public let serverExitStatus: Int32

    public var errors: Int { runs.reduce(0) { $0 + $1.http.errors + $1.inProcess.errors } }

    /// At one client, HTTP reaches `oneClientRatioTarget` of in-process (nil when not run).
    /// (On the fewest servers measured.)
    public var oneClientRatioMet: Bool? {
        runs.first { $0.clients == 1 && $0.servers == fewestServers }.map { $0.ratio >= Self.oneClientRatioTarget }
    }

    /// The most clients serve more payments per second over HTTP than one, on the fewest
    /// servers measured (nil when not both run).
    public var scalesWithClients: Bool? {
        let fewest = runs.filter { $0.servers == fewestServers }
        guard let one = fewest.first(where: { $0.clients == 1 }), let most = fewest.max(by: { $0.clients < $1.clients }), most.clients > 1 else {
            return nil
        }
        return most.http.paymentsPerSecond > one.http.paymentsPerSecond
    }

    /// At the most clients, the most servers serve more payments per second over HTTP than
    /// one server (nil unless one server and more than one were both measured there).
    public var scalesWithServers: Bool? {
        guard let clients = runs.map(\.clients).max(),
            let one = runs.first(where: { $0.clients == clients && $0.servers == 1 }),
            let most = runs.filter({ $0.clients == clients }).max(by: { $0.servers < $1.servers }), most.servers > 1
        else { return nil }
        return most.http.paymentsPerSecond > one.http.paymentsPerSecond
    }

    private var fewestServers: Int { runs.map(\.servers).min() ?? 1 }

    public var residentMet: Bool { idle.residentBytes > 0 && idle.residentBytes <= Self.residentTargetBytes }

    public var json: JSONValue {
        let mebibytes = { (bytes: Int) in LifecycleBenchmarkResult.decimal(Double(bytes) / 1_048_576, places: 1) }
        let optional = { (value: Bool?) in value.map(JSONValue.bool) ?? .null }
        return .orderedObject([
            ("store", .string(store)),
            ("runs", .array(runs.map { run in
                .orderedObject([
                    ("clients", .number(run.clients)), ("servers", .number(run.servers)), ("http", run.http.json), ("inProcess", run.inProcess.json),
                    ("ratio", LifecycleBenchmarkResult.decimal(run.ratio, places: 3)),
                ])
            })),
            ("idle", .orderedObject([
                ("connections", .number(idle.connections)), ("residentAtStartMiB", mebibytes(idle.residentAtStartBytes)),
                ("residentBeforeMiB", mebibytes(idle.residentBeforeBytes)),
                ("residentMiB", mebibytes(idle.residentBytes)), ("peakMiB", mebibytes(idle.peakBytes)),
                ("freshRequestServed", .bool(idle.freshRequestServed)),
            ])),
            ("errors", .number(errors)), ("serverExitStatus", .number(Int(serverExitStatus))),
            ("targets", .orderedObject([
                ("oneClientRatioAtLeast0.7", optional(oneClientRatioMet)), ("moreClientsMorePayments", optional(scalesWithClients)),
                ("moreServersMorePayments", optional(scalesWithServers)),
                ("noErrors", .bool(errors == 0)), ("residentAtMost64MiB", .bool(residentMet)),
            ])),
        ])
    }
}
