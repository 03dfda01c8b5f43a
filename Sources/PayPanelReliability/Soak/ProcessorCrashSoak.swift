import Foundation
import Glibc
import PayPanel

/// The crash soak with the processor in its own process: `paypanel serve --processor http://…`
/// against `paypanel processor serve`, a client driving payments through serve's API (create →
/// confirm → capture or cancel → refunds), and SIGKILLs of serve and, separately, of processor
/// serve — at every one of serve's fault points (`PAYPANEL_FAULT`), while each of the
/// processor's network faults is in progress (processed then dropped, slower than serve's
/// timeout, held, 503 and 429), and at random moments. Both are restarted on the same files
/// (processor serve on its old port when the system gives it back), serve's worker resolves
/// what the kills left unknown, and at the end both ledgers are compared (`PaymentsAudit`:
/// nothing lost, nothing charged twice, invariants, history replay).
///
/// Deterministic schedule: the seed picks every flow, injection and kill delay; the first
/// iterations alternate serve's fault points and the network-fault kills, so a small count
/// covers both. Serve runs on the real clock (its worker's grace is real seconds); processor
/// serve on a fixed one. Where a random kill lands depends on the machine's speed.
public final class ProcessorCrashSoak {
    public let configuration: ProcessorSoakConfiguration
    var random: SeededRandomNumberGenerator
    var report: ProcessorSoakReport
    var serve: ListeningProcess?
    var processor: ListeningProcess?
    var serveGeneration = 0
    var processorGeneration = 0
    /// The fault point serve was started with (nil: none).
    var armedFault: String?
    let apiKey: String
    /// The two servers' command lines.
    let launcher: SoakServerLauncher
    /// Recent durations of each kind of call, for drawing kill moments.
    var durations: [String: [Double]] = [:]

    enum Injection {
        case none
        /// serve runs with `PAYPANEL_FAULT=name` until it fires.
        case serveFault(String)
        /// processor serve is killed during the first step (the network fault's call).
        case processorDuringNetworkFault
        /// serve or processor serve is killed during step `step` (0: the create).
        case serveTimer(step: Int)
        case processorTimer(step: Int)
    }

    /// Creates the payments database with an API key for the client.
    public init(configuration: ProcessorSoakConfiguration) throws {
        self.configuration = configuration
        random = SeededRandomNumberGenerator(seed: configuration.seed)
        report = ProcessorSoakReport(iterations: configuration.iterations, seed: configuration.seed)
        let clock = SystemClock()
        let keys = APIKeyRing(store: SQLiteAPIKeyStore(database: try Database.openMigrated(path: configuration.databasePath, clock: clock)))
        apiKey = try keys.create(name: "processor-soak", at: clock.now()).key
        launcher = SoakServerLauncher(
            executable: configuration.executable, directory: configuration.directory, databasePath: configuration.databasePath,
            ledgerPath: configuration.ledgerPath, processorKey: configuration.processorKey, processorTimeout: configuration.processorTimeout,
            hold: configuration.hold, processorNow: configuration.processorNow)
    }

    deinit {
        serve?.crash()
        processor?.crash()
    }

    /// Runs every iteration, waits for everything to settle, stops both servers and audits.
    /// `progress` is told after each iteration.
    public func run(progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws -> ProcessorSoakReport {
        let started = Date()
        try startProcessor(port: 0)
        try startServe(fault: nil)
        let schedule = self.schedule()
        for (iteration, (flow, injection)) in schedule.enumerated() {
            try runIteration(iteration, flow: flow, injection: injection)
            progress(iteration + 1, configuration.iterations)
        }
        if armedFault != nil { try restartServe(fault: nil, graceful: true) }
        try audit()
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// The seeded schedule: serve's fault points and the network-fault kills alternate first,
    /// then random flows with no fault, a fault point, or a kill of either server.
    func schedule() -> [(ProcessorSoakFlow, Injection)] {
        var faults = FaultSelector.names[...]
        var network = ProcessorSoakFlow.networkFaultFlows[...]
        var schedule: [(ProcessorSoakFlow, Injection)] = []
        for iteration in 0..<configuration.iterations {
            if iteration % 2 == 0, let name = faults.popFirst() {
                schedule.append((ProcessorSoakFlow.reaching(name, choice: Int(random.next() % 1000)), .serveFault(name)))
            } else if let flow = network.popFirst() {
                schedule.append((flow, .processorDuringNetworkFault))
            } else if let name = faults.popFirst() {
                schedule.append((ProcessorSoakFlow.reaching(name, choice: Int(random.next() % 1000)), .serveFault(name)))
            } else {
                let flow = ProcessorSoakFlow.allCases[Int(random.next() % UInt64(ProcessorSoakFlow.allCases.count))]
                let step = Int(random.next() % UInt64(flow.steps.count + 1))
                let injection: Injection =
                    switch random.next() % 4 {
                    case 0: .none
                    case 1: .serveFault(FaultSelector.names[Int(random.next() % UInt64(FaultSelector.names.count))])
                    case 2: .serveTimer(step: step)
                    default: .processorTimer(step: step)
                    }
                schedule.append((flow, injection))
            }
        }
        return schedule
    }

    // MARK: - One iteration

    private func runIteration(_ iteration: Int, flow: ProcessorSoakFlow, injection: Injection) throws {
        report.flows[flow.rawValue, default: 0] += 1
        if case .serveFault(let name) = injection {
            report.faultsArmed += 1
            try restartServe(fault: name, graceful: true)
        }
        let killDuring: (step: Int, target: KillTarget)? =
            switch injection {
            case .serveTimer(let step): (step, .serve)
            case .processorTimer(let step): (step, .processor)
            case .processorDuringNetworkFault: (1, .processor)
            default: nil
            }

        guard let intentID = try createIntent(iteration: iteration, flow: flow, kill: killDuring?.step == 0 ? killDuring?.target : nil) else {
            report.findings.append("iteration \(iteration) (\(flow.rawValue)): the intent could not be created")
            return
        }
        for (index, step) in flow.steps.enumerated() {
            let intent = try settledIntent(intentID)
            guard let body = step.request(on: intent, id: intentID) else {
                report.stepsSkipped += 1
                continue
            }
            let target = killDuring?.step == index + 1 ? killDuring?.target : nil
            let network = target != nil && injection.isNetworkFault ? flow.networkFault : nil
            _ = try call(body.method, body.path, body.json, kind: step.kind, kill: target, networkFault: network)
        }
        _ = try settledIntent(intentID)
        if armedFault != nil {
            report.faultsNotReached += 1
            try restartServe(fault: nil, graceful: true)
        }
    }

    /// Creates the flow's intent under an idempotency key; a create killed before it answered
    /// (the key then answers 409 until its lease runs out) is found by its order reference instead.
    private func createIntent(iteration: Int, flow: ProcessorSoakFlow, kill: KillTarget?) throws -> String? {
        let order = "psoak-\(configuration.seed)-\(iteration)"
        let json = #"{"amount":1000,"currency":"USD","capture_method":"\#(flow.captureMethod)","order_reference":"\#(order)"}"#
        for round in 0..<3 {
            let answer = try call("POST", "/v1/payment_intents", json, kind: "create", kill: round == 0 ? kill : nil,
                                  idempotencyKey: "\(order)-\(round)")
            if let answer, answer.status == 200, let id = answer.json["id"]?.stringValue { return id }
            if let found = try intent(withOrder: order) { return found }
        }
        return nil
    }

    // MARK: - Waiting for the worker

    /// The intent once nothing about it is in flight: not `processing`, no refund `pending`.
    /// serve's worker looks an unknown outcome up once the call is older than its grace.
    func settledIntent(_ id: String) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(configuration.settleTimeout)
        var waited = false
        while true {
            if let answer = try call("GET", "/v1/payment_intents/\(id)", nil, kind: "read"), answer.status == 200 {
                let pending = answer.json["refunds"]?.arrayValue?.contains { $0["status"]?.stringValue == "pending" } ?? false
                if answer.json["status"]?.stringValue != "processing" && !pending { return answer.json }
            }
            if Date() > deadline {
                throw ProcessorSoakError(code: "soak_intent_stuck", message: "\(id) was still processing after \(Int(configuration.settleTimeout)) s: serve's worker did not resolve it (see \(configuration.directory))")
            }
            if !waited {
                waited = true
                report.settleWaits += 1
            }
            usleep(200_000)
        }
    }

    /// The intent whose order reference is `order`, from serve's list (newest first).
    private func intent(withOrder order: String) throws -> String? {
        var after: String?
        for _ in 0..<50 {
            let query = "/v1/payment_intents?limit=100" + (after.map { "&starting_after=\($0)" } ?? "")
            guard let answer = try call("GET", query, nil, kind: "read"), answer.status == 200 else { return nil }
            let data = answer.json["data"]?.arrayValue ?? []
            if let found = data.first(where: { $0["order_reference"]?.stringValue == order }) { return found["id"]?.stringValue }
            guard answer.json["has_more"]?.boolValue == true, let last = data.last?["id"]?.stringValue else { return nil }
            after = last
        }
        return nil
    }
}

extension ProcessorCrashSoak.Injection {
    var isNetworkFault: Bool {
        if case .processorDuringNetworkFault = self { return true }
        return false
    }
}
