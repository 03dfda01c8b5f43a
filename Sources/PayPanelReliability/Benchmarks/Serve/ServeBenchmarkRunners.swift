import Foundation
import PayPanel
import Synchronization

/// What one timed run of `clients` concurrent clients measured: wall time from the moment
/// every client was ready to the moment the last one finished, and each payment's latency.
struct ServeRunMeasurement: Sendable {
    var seconds: Double = 0
    var latencies: [Double] = []
    var errors = 0
    var firstError: String?
    /// CPU time the server processes spent meanwhile (user + system, from /proc), in seconds;
    /// nil for the in-process side, whose CPU is the bench's own.
    var serverCPUSeconds: Double?
    /// Context switches of the server processes' threads meanwhile; nil for the in-process side.
    var serverContextSwitches: Int?
    /// CPU time of the server processes' threads meanwhile, by kind of thread
    /// (`ProcCPUTime.byKind`), in seconds; nil for the in-process side.
    var threadCPUSeconds: [String: Double]?

    mutating func add(_ other: ServeRunMeasurement) {
        seconds += other.seconds
        latencies += other.latencies
        errors += other.errors
        firstError = firstError ?? other.firstError
        if let more = other.serverCPUSeconds { serverCPUSeconds = (serverCPUSeconds ?? 0) + more }
        if let more = other.serverContextSwitches { serverContextSwitches = (serverContextSwitches ?? 0) + more }
        if let more = other.threadCPUSeconds { threadCPUSeconds = (threadCPUSeconds ?? [:]).merging(more, uniquingKeysWith: +) }
    }
}

/// One client's share: its latencies, errors and first error.
private struct ClientTally: Sendable {
    var latencies: [Double] = []
    var errors = 0
    var firstError: String?

    mutating func record(_ failure: String?, seconds: Double) {
        latencies.append(seconds)
        if let failure {
            errors += 1
            firstError = firstError ?? failure
        }
    }
}

enum ServeBenchmarkRunners {
    /// `tokens` split over `clients` threads (`ClientThreads`), each on its own keep-alive
    /// connection (opened before the clock starts) to one of `ports`, round-robin: client i talks
    /// to server i mod (number of servers), as a load balancer spreading connections would.
    static func overHTTP(ports: [Int], apiKey: String, clients: Int, tokens: [[UInt8]]) async -> ServeRunMeasurement {
        let shares = split(tokens, into: clients)
        let (tallies, seconds) = await ClientThreads.run(count: shares.count) { index, startLine in
            let share = shares[index]
            var tally = ClientTally()
            let client: BenchmarkHTTPClient
            do {
                client = try BenchmarkHTTPClient(port: ports[index % ports.count])
            } catch {
                tally.errors = share.count
                tally.firstError = "\(error)"
                return tally
            }
            startLine()
            let clock = ContinuousClock()
            for (index, token) in share.enumerated() {
                let start = clock.now
                do {
                    let failure = try ServeBenchmarkFlow.overHTTP(client, apiKey: apiKey, token: token)
                    tally.record(failure, seconds: (clock.now - start).timeInterval)
                } catch {
                    // The connection is unusable: the rest of this client's payments fail too.
                    tally.errors += share.count - index
                    tally.firstError = tally.firstError ?? "\(error)"
                    break
                }
            }
            return tally
        }
        return Self.measurement(seconds: seconds, tallies)
    }

    /// The same split over `clients` concurrent tasks calling the desk and the service.
    /// Each task prefers `executor`, as the server's handler tasks prefer its own.
    static func inProcess(
        desk: CheckoutDesk, service: PaymentService, decryptor: ApplePayTokenDecryptor, clients: Int, tokens: [[UInt8]],
        executor: InProcessExecutor
    ) async -> ServeRunMeasurement {
        let createJSON = (try? JSONParser().parse(ServeBenchmarkFlow.createBody)) ?? .object(JSONObject())
        let clock = ContinuousClock()
        let start = clock.now
        let tallies = await withTaskGroup(of: ClientTally.self) { group in
            for share in split(tokens, into: clients) {
                group.addTask(executorPreference: executor) {
                    var tally = ClientTally()
                    for token in share {
                        let begun = clock.now
                        let failure = await ServeBenchmarkFlow.inProcess(
                            desk: desk, service: service, createJSON: createJSON, token: token, decryptor: decryptor)
                        tally.record(failure, seconds: (clock.now - begun).timeInterval)
                    }
                    return tally
                }
            }
            var all: [ClientTally] = []
            for await tally in group { all.append(tally) }
            return all
        }
        return measurement(seconds: (clock.now - start).timeInterval, tallies)
    }

    /// Round-robin shares, none empty: `clients` is cut to the number of items.
    static func split<T>(_ items: [T], into clients: Int) -> [[T]] {
        let count = max(1, min(clients, items.count))
        var shares = Array(repeating: [T](), count: count)
        for (index, item) in items.enumerated() { shares[index % count].append(item) }
        return shares
    }

    private static func measurement(seconds: Double, _ tallies: [ClientTally]) -> ServeRunMeasurement {
        var result = ServeRunMeasurement(seconds: seconds)
        for tally in tallies {
            result.latencies += tally.latencies
            result.errors += tally.errors
            result.firstError = result.firstError ?? tally.firstError
        }
        return result
    }
}

