import Foundation
import Glibc
import PayPanel
import Synchronization

/// Which server a kill is for.
enum KillTarget {
    case serve
    case processor
}

/// Whether a kill timer sent its signal (set on the timer's thread, read on the soak's).
final class KillFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func markFired() { value.store(true, ordering: .releasing) }
    var fired: Bool { value.load(ordering: .acquiring) }
}

/// One answer from a server: its status and JSON body.
struct SoakAnswer {
    let status: Int
    let json: JSONValue
}

// The calls, the kills and the restarts of `ProcessorCrashSoak`.
extension ProcessorCrashSoak {
    /// One call to serve on a new connection. `kill`: SIGKILL that server after a seeded delay
    /// while the call is in flight. Nothing sent (serve down) is retried after a restart; a
    /// call that got no answer returns nil (the caller reads the intent to learn what happened).
    func call(
        _ method: String, _ path: String, _ json: String?, kind: String, kill target: KillTarget? = nil, networkFault: String? = nil,
        idempotencyKey: String? = nil
    ) throws -> SoakAnswer? {
        for _ in 0..<3 {
            try reviveServers()
            guard let serve else { return nil }
            let victim = target.flatMap { $0 == .serve ? self.serve : self.processor }
            let timer = victim.map { scheduleKill(of: $0, after: killDelay(kind: kind, networkFault: networkFault)) }
            let started = Date()
            var answer: SoakAnswer?
            var nothingSent = false
            do {
                let client = try BenchmarkHTTPClient(port: serve.port, timeoutSeconds: 60)
                let response = try client.request(
                    method, path, bearer: apiKey, body: json.map { Array($0.utf8) }, headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
                answer = SoakAnswer(status: response.status, json: (try? JSONParser().parse(response.body)) ?? .null)
            } catch {
                if case .connectFailed = error { nothingSent = true }
                if case .sendFailed = error { nothingSent = true }
            }
            timer?.item.cancel()
            if networkFault != nil, let victim, let timer, !timer.fired.fired {
                // The fault was over before the timer: the kill lands while serve still has to
                // learn the outcome (its worker's lookup), so every network fault gets its kill.
                timer.fired.markFired()
                victim.process.signal(SIGKILL)
            }
            report.requests += 1
            if answer != nil, target == nil { remember(kind, seconds: Date().timeIntervalSince(started)) }
            if let victim, let timer, timer.fired.fired {
                _ = victim.waitForExit(within: .seconds(30))
                victim.crash()  // reaps it (SIGKILL again if it somehow survived)
                if victim === processor {
                    report.processorKills += 1
                    if let networkFault { report.networkFaultKills[networkFault, default: 0] += 1 }
                    try restartProcessor()
                } else {
                    report.serveKills += 1
                    try restartServe(fault: nil, graceful: false)
                }
            }
            try reviveServers()
            if let answer { return answer }
            if !nothingSent || target != nil { return nil }
        }
        return nil
    }

    /// Restarts whichever server is down: serve killed by its fault point, or an exit nobody
    /// asked for (a finding).
    func reviveServers() throws {
        if let processor, !processor.isRunning {
            if !processor.wasKilled { report.findings.append("processor serve ended by itself (status \(processor.process.termination.map(String.init(describing:)) ?? "?")): \(processor.stderr.suffix(400))") }
            try restartProcessor()
        }
        if let serve, !serve.isRunning {
            if let armedFault, serve.wasKilled {
                report.faultKills[armedFault, default: 0] += 1
            } else if !serve.wasKilled {
                report.findings.append("serve ended by itself (status \(serve.process.termination.map(String.init(describing:)) ?? "?")): \(serve.stderr.suffix(400))")
            } else {
                report.serveKills += 1
            }
            try restartServe(fault: nil, graceful: false)
        }
    }

    /// SIGKILL `server` after `delay` unless canceled first; `fired` tells whether it was sent.
    private func scheduleKill(of server: ListeningProcess, after delay: Double) -> (item: DispatchWorkItem, fired: KillFlag) {
        let process = server.process
        let fired = KillFlag()
        let item = DispatchWorkItem {
            fired.markFired()
            process.signal(SIGKILL)  // not once it has been reaped: its pid may be another's by then
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: item)
        return (item, fired)
    }

    /// A seeded moment within (a little beyond) how long this kind of call usually takes; for
    /// a network fault, within the processor timeout and its retry (about a second).
    private func killDelay(kind: String, networkFault: String?) -> Double {
        let fraction = Double(random.next() % 1200) / 1000
        if networkFault != nil { return fraction * (Double(configuration.processorTimeout) ?? 1) }
        let recent = (durations[kind] ?? []).sorted()
        let typical = recent.isEmpty ? 0.05 : recent[recent.count / 2]
        return typical * fraction
    }

    private func remember(_ kind: String, seconds: Double) {
        durations[kind, default: []].append(seconds)
        if durations[kind, default: []].count > 20 { durations[kind]?.removeFirst() }
    }

    // MARK: - Starting and restarting

    func startProcessor(port: Int) throws {
        processorGeneration += 1
        processor = try launcher.startProcessor(port: port, generation: processorGeneration)
    }

    /// processor serve again on the same ledger, on its old port when that is free again (serve
    /// keeps its URL, as with a real restart); else on a new port, and serve is restarted to
    /// point at it.
    private func restartProcessor() throws {
        let oldPort = processor?.port ?? 0
        report.processorRestarts += 1
        if (try? startProcessor(port: oldPort)) != nil {
            report.processorPortReused += 1
            return
        }
        try startProcessor(port: 0)
        try restartServe(fault: armedFault, graceful: true)
    }

    func startServe(fault: String?) throws {
        serveGeneration += 1
        armedFault = fault
        serve = try launcher.startServe(port: 0, processorPort: processor?.port ?? 0, fault: fault, generation: serveGeneration)
    }

    /// Stops serve (SIGTERM when `graceful`: it was not killed) and starts it again, with
    /// `fault` armed or none.
    func restartServe(fault: String?, graceful: Bool) throws {
        if let serve, serve.isRunning {
            if graceful {
                let status = serve.stop()
                if status != 0, !serve.wasKilled { report.findings.append("serve exited with status \(status) on SIGTERM") }
                if serve.wasKilled, let armedFault { report.faultKills[armedFault, default: 0] += 1 }
            } else {
                serve.crash()
            }
        }
        report.serveRestarts += 1
        try startServe(fault: fault)
    }
}
