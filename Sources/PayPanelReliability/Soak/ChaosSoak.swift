import Foundation
import Glibc
import MockProcessor
import PayPanel

/// The chaos soak: many clients paying at once while both servers die under them.
///
/// One `paypanel processor serve` (real clock, its webhooks on: serve registers its
/// `/v1/processor/webhooks` at every start with `--public-url auto`) and one `paypanel serve
/// --processor http://…` with short reconciliation delays and a 1 s processor timeout. N
/// clients (`ChaosClient`, a thread each) loop over seeded flows through serve's API and the
/// device's checkout pay, with the mock processor's slow and unknown triggers and declines. A
/// killer thread SIGKILLs serve or processor serve at seeded moments (3–8 s apart by default;
/// one of each first, so both die in any run with two kills) and restarts it on the same files
/// and port. At the end the kills stop, both servers restart cleanly, serve's worker settles
/// what the kills left unknown, both stop, and two audits run:
///
/// 1. the both-ledger audit (`PaymentsAudit`: nothing lost, nothing charged twice,
///    invariants, history replay, integrity);
/// 2. every answer a client was given against the money at the processor
///    (`ChaosAnswerAudit`): an answer that contradicts the money fails the run.
///
/// The seed fixes each client's flows and cards and the killer's delays and targets; how far
/// each client gets, and where a kill lands, depend on the machine's speed.
public final class ChaosSoak {
    public let configuration: ChaosSoakConfiguration
    let servers: ChaosServers
    let apiKey: String

    /// Creates the payments database with an API key for the clients.
    public init(configuration: ChaosSoakConfiguration) throws {
        self.configuration = configuration
        let clock = SystemClock()
        let keys = APIKeyRing(store: SQLiteAPIKeyStore(database: try Database.openMigrated(path: configuration.databasePath, clock: clock)))
        apiKey = try keys.create(name: "chaos-soak", at: clock.now()).key
        var launcher = SoakServerLauncher(
            executable: configuration.executable, directory: configuration.directory, databasePath: configuration.databasePath,
            ledgerPath: configuration.ledgerPath, processorKey: configuration.processorKey, processorTimeout: configuration.processorTimeout,
            hold: configuration.hold, processorNow: nil)
        launcher.extraServeArguments = ["--public-url", "auto"]
        servers = ChaosServers(launcher: launcher)
    }

    /// A seed of its own for each thread (`stream` 0: the killer, 1…: the clients), derived
    /// from the run's seed so that adding a client changes no other's schedule.
    static func stream(_ seed: UInt64, _ stream: Int) -> UInt64 {
        var generator = SeededRandomNumberGenerator(seed: seed ^ (UInt64(stream) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }

    /// Runs the clients and the killer for the configured time, settles, stops both servers
    /// and audits. `progress` is told about once a second (seconds done, seconds in all, kills).
    public func run(progress: (_ done: Int, _ total: Int, _ kills: Int) -> Void = { _, _, _ in }) throws -> ChaosSoakReport {
        let started = Date()
        var report = ChaosSoakReport(clients: configuration.clients, seconds: configuration.seconds, seed: configuration.seed)
        try servers.start()
        let deadline = started.addingTimeInterval(configuration.seconds)

        let group = DispatchGroup()
        let clients = (0..<configuration.clients).map {
            ChaosClient(index: $0, servers: servers, apiKey: apiKey, seed: configuration.seed, deadline: deadline,
                        stepSettleTimeout: configuration.stepSettleTimeout)
        }
        let killer = ChaosKiller(servers: servers, seed: ChaosSoak.stream(configuration.seed, 0), interval: configuration.killInterval, deadline: deadline)
        for client in clients { Self.onThread(group, named: "chaos-client-\(client.index)") { client.run() } }
        Self.onThread(group, named: "chaos-killer") { killer.run() }
        while group.wait(timeout: .now() + 1) == .timedOut {
            progress(min(Int(Date().timeIntervalSince(started)), Int(configuration.seconds)), Int(configuration.seconds), servers.counts.serveKills + servers.counts.processorKills)
        }

        for client in clients {
            report.requests += client.requests
            report.flowsAbandoned += client.abandoned
            for (flow, count) in client.flows { report.flows[flow, default: 0] += count }
        }
        let answers = clients.flatMap(\.answers)
        for answer in answers { report.answers[answer.kind, default: 0] += 1 }
        report.findings += killer.findings
        guard killer.findings.isEmpty else {
            // A server that could not be restarted: nothing after this would mean anything.
            servers.stopBoth()
            report.elapsed = Date().timeIntervalSince(started)
            return report
        }

        try servers.restartCleanly()
        let settleStarted = Date()
        let attemptsOfIntent = settleEverything(&report)
        report.settleSeconds = Date().timeIntervalSince(settleStarted)
        let (attempts, refunds) = try SoakLedger.processorDirectory(port: servers.processorPort, key: configuration.processorKey)
        servers.stopBoth()
        let counts = servers.counts
        report.serveKills = counts.serveKills
        report.processorKills = counts.processorKills
        report.serveRestarts = counts.serveRestarts
        report.processorRestarts = counts.processorRestarts
        report.servePortReused = counts.servePortReused
        report.processorPortReused = counts.processorPortReused
        report.findings += counts.findings

        // The processor's ledger as it stands now (its clock is the real one).
        let now = Date()
        let entries = try ProcessorLedger(path: configuration.ledgerPath, clock: ManualClock(now)).entries(now: now)
        let effects = entries.map { SoakLedger.translated(ProcessorEffect($0), attempts: attempts, refunds: refunds) }
        let database = try Database.openMigrated(path: configuration.databasePath, set: .main, clock: ManualClock(now))
        report.audit = try PaymentsAudit.run(
            ledger: PaymentLedger(store: SQLitePaymentStore(database: database), policy: SoakServerLauncher.policy), effects: effects, expectSettled: true)
        let answerAudit = ChaosAnswerAudit(answers: answers, effects: effects, attemptsOfIntent: attemptsOfIntent)
        report.answersAudited = answerAudit.audited
        report.contradictions = answerAudit.contradictions()
        report.findings += SoakLedger.cardDataInOutput(
            directory: configuration.directory,
            numbers: ["4242424242424242", "5555555555554444", "4000000000000002", "4000000000009995"])
        report.elapsed = Date().timeIntervalSince(started)
        return report
    }

    private static func onThread(_ group: DispatchGroup, named name: String, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    // MARK: - The end: settling

    /// Reads every intent serve holds until none is in flight (not `processing`, no refund
    /// `pending`) or `settleTimeout` passes (each one left is a finding). Returns each intent's
    /// attempts as finally read.
    private func settleEverything(_ report: inout ChaosSoakReport) -> [String: [String]] {
        let limit = Date().addingTimeInterval(configuration.settleTimeout)
        var attempts: [String: [String]] = [:]
        var unsettled = Set(allIntentIDs())
        while true {
            for id in unsettled.sorted() {
                guard let answer = request("GET", "/v1/payment_intents/\(id)"), answer.status == 200 else { continue }
                attempts[id] = (answer.json["attempts"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                if ChaosClient.isSettled(answer.json) { unsettled.remove(id) }
            }
            if unsettled.isEmpty || Date() > limit { break }
            usleep(500_000)
        }
        if !unsettled.isEmpty {
            report.findings.append(
                "\(unsettled.count) intent(s) still in flight \(Int(configuration.settleTimeout)) s after the clean restart (serve's worker did not settle them): \(unsettled.sorted().prefix(5).joined(separator: ", ")); see \(configuration.directory) with --dir")
        }
        return attempts
    }

    /// Every intent id, page by page (newest first).
    private func allIntentIDs() -> [String] {
        var ids: [String] = []
        var after: String?
        for _ in 0..<10_000 {
            guard let page = request("GET", "/v1/payment_intents?limit=100" + (after.map { "&starting_after=\($0)" } ?? "")), page.status == 200 else { break }
            let data = page.json["data"]?.arrayValue ?? []
            ids += data.compactMap { $0["id"]?.stringValue }
            guard page.json["has_more"]?.boolValue == true, let last = data.last?["id"]?.stringValue else { break }
            after = last
        }
        return ids
    }

    /// One request to serve with the soak's key (a few tries: it has just restarted).
    private func request(_ method: String, _ path: String) -> SoakAnswer? {
        for attempt in 0..<5 {
            if attempt > 0 { usleep(500_000) }
            guard let client = try? BenchmarkHTTPClient(port: servers.servePort, timeoutSeconds: 60),
                  let response = try? client.request(method, path, bearer: apiKey, body: nil)
            else { continue }
            return SoakAnswer(status: response.status, json: (try? JSONParser().parse(response.body)) ?? .null)
        }
        return nil
    }
}

/// The chaos soak's killer, on a thread of its own: waits a seeded delay, SIGKILLs serve or
/// processor serve (one of each first, in a seeded order, then a seeded choice) and restarts
/// it, until the deadline.
final class ChaosKiller: @unchecked Sendable {
    private let servers: ChaosServers
    private var random: SeededRandomNumberGenerator
    private let interval: ClosedRange<Double>
    private let deadline: Date
    /// A server that could not be restarted (the run stops there).
    private(set) var findings: [String] = []

    init(servers: ChaosServers, seed: UInt64, interval: ClosedRange<Double>, deadline: Date) {
        self.servers = servers
        random = SeededRandomNumberGenerator(seed: seed)
        self.interval = interval
        self.deadline = deadline
    }

    ///
    /// Each moment is a seeded delay after the previous moment, not after the previous restart:
    /// on a loaded machine a restart can take seconds, and counting from its end pushed the
    /// second kill past the deadline, so a run meant to kill both servers killed one.
    func run() {
        var firsts: [KillTarget] = random.next() % 2 == 0 ? [.serve, .processor] : [.processor, .serve]
        var previous = Date()
        while true {
            let fraction = Double(random.next() % 10_001) / 10_000
            let moment = previous.addingTimeInterval(interval.lowerBound + (interval.upperBound - interval.lowerBound) * fraction)
            previous = moment
            let target = firsts.isEmpty ? (random.next() % 2 == 0 ? KillTarget.serve : .processor) : firsts.removeFirst()
            guard moment < deadline else { return }
            Thread.sleep(until: moment)
            do {
                try servers.kill(target)
            } catch {
                findings.append("\(target == .serve ? "serve" : "processor serve") could not be restarted after its SIGKILL: \(error)")
                return
            }
        }
    }
}
