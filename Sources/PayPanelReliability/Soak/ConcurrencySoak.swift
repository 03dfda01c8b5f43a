import Foundation
import PayPanel

/// The concurrency soak: N `paypanel` processes at a time (default 8) hammer one payments
/// database and one processor ledger, round after round — creates with a shared and with
/// distinct idempotency keys, authorizations racing on one intent (with and without a key),
/// captures racing on one authorization, refunds racing on one capture, and `reconcile` running
/// alongside. Real time and real processor latency, so the races are real.
///
/// It checks that no process ever surfaces SQLITE_BUSY, that the races resolve exactly once
/// (one intent per shared key, one authorization, one capture, refunds within the capture),
/// and, after a final reconcile, the full audit (invariants, history replay, ledger agreement).
public final class ConcurrencySoak {
    public let configuration: ConcurrencySoakConfiguration
    private var random: SeededRandomNumberGenerator
    private var report: ConcurrencySoakReport
    private let paymentLedger: PaymentLedger

    /// A soak on the database and ledger in `configuration.directory` (created and migrated here).
    public init(configuration: ConcurrencySoakConfiguration) throws {
        self.configuration = configuration
        random = SeededRandomNumberGenerator(seed: configuration.seed)
        report = ConcurrencySoakReport(processes: configuration.processes, rounds: configuration.rounds, seed: configuration.seed)
        let database = try Database.openMigrated(path: configuration.databasePath, set: .main)
        paymentLedger = PaymentLedger(store: SQLitePaymentStore(database: database))
    }

    /// Runs every round, a final reconcile (`finalTime`: past every grace period) and the audit.
    package func run(
        finalTime: Date, readLedger: (Date) throws -> [ProcessorEffect], progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws -> ConcurrencySoakReport {
        let started = ContinuousClock.now
        for round in 0..<configuration.rounds {
            try runRound(round)
            progress(round + 1, configuration.rounds)
        }
        for _ in 0..<2 { _ = try together([["reconcile", "--json"]], environment: ["PAYPANEL_NOW": Timestamp.format(finalTime)]) }
        let effects = try readLedger(finalTime)
        report.audit = try PaymentsAudit.run(ledger: paymentLedger, effects: effects, expectSettled: true)
        checkExactlyOnce(effects)
        let elapsed = started.duration(to: .now)
        report.seconds = elapsed.timeInterval
        return report
    }

    // MARK: - One round

    private func runRound(_ round: Int) throws {
        let count = configuration.processes
        let tag = "\(configuration.seed)-\(round)"
        // 1. Creates: half share one key, half have their own.
        let creates = try together((0..<count).map { index in
            ["payments", "create", "--amount", "10.00", "--capture", "manual", "--order", "race-\(tag)", "--json",
             "--idempotency-key", index % 2 == 0 ? "shared-\(tag)" : "own-\(tag)-\(index)"]
        })
        var sharedIDs = Set<String>()
        var ownIDs: [String] = []
        for (index, result) in creates.enumerated() where result.exitCode == 0 {
            guard let id = (try? JSONParser().parse(Array(result.stdout.utf8)))?["id"]?.stringValue else { continue }
            if index % 2 == 0 { sharedIDs.insert(id) } else { ownIDs.append(id) }
        }
        report.creates += count
        if sharedIDs.count != 1 { report.findings.append("round \(round): \(count / 2) creates with one key made \(sharedIDs.count) intents") }
        if Set(ownIDs).count != count - count / 2 {
            report.findings.append("round \(round): \(count - count / 2) creates with their own keys made \(Set(ownIDs).count) intents")
        }
        guard let shared = sharedIDs.first, ownIDs.count >= 2 else { return }
        let keyless = ownIDs[0]
        report.sharedIntents.append(shared)
        report.keylessIntents.append(keyless)

        // 2. Authorizations: everyone on the shared intent with one key; everyone on another
        //    intent with no key; one process reconciles meanwhile.
        let authorizations = try together((0..<count).map { index in
            if index == count - 1 { return ["reconcile", "--json"] + processorOptions() }
            if index % 2 == 0 {
                return ["payments", "authorize", shared, "--card", "4242424242424242", "--idempotency-key", "pay-\(tag)"] + processorOptions()
            }
            return ["payments", "authorize", keyless, "--card", "5555555555554444"] + processorOptions()
        })
        report.authorizations += count - 1
        report.expectedRejections += authorizations.filter { $0.exitCode == 1 }.count

        // 3. Captures racing on the shared intent (and the keyless one).
        let captures = try together((0..<count).map { index in
            ["payments", "capture", index % 2 == 0 ? shared : keyless] + processorOptions()
        })
        report.captures += count
        report.expectedRejections += captures.filter { $0.exitCode == 1 }.count

        // 4. Refunds racing on the shared intent: 6.00 each (only one fits in 10.00), plus
        //    3.00 refunds with one shared key.
        let refunds = try together((0..<count).map { index in
            if index % 2 == 0 { return ["payments", "refund", shared, "--amount", "6.00"] + processorOptions() }
            return ["payments", "refund", keyless, "--amount", "3.00", "--idempotency-key", "refund-\(tag)"] + processorOptions()
        })
        report.refunds += count
        report.expectedRejections += refunds.filter { $0.exitCode == 1 }.count
    }

    private func processorOptions() -> [String] {
        ["--latency", configuration.latency, "--latency-seed", String(random.next() % 1_000_000), "--processor-timeout", "5"]
    }

    /// Starts every command at once and waits for all of them.
    private func together(_ commands: [[String]], environment extra: [String: String] = [:]) throws -> [ChildProcess.Result] {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": configuration.directory, "NO_COLOR": "1",
            "PAYPANEL_DB": configuration.databasePath, "PAYPANEL_PROCESSOR_DB": configuration.ledgerPath,
        ]
        environment.merge(extra) { $1 }
        let running = try commands.map {
            try ChildProcess.start(configuration.executable, $0, environment: environment, directory: configuration.directory)
        }
        var results: [ChildProcess.Result] = []
        for child in running {
            let result = try child.wait(timeout: configuration.requestTimeout)
            results.append(result)
            report.processesRun += 1
            report.stderrs.append(result.stderr)
            let shown = result.arguments.prefix(3).joined(separator: " ")
            if result.exitCode != 0 && result.exitCode != 1 {
                report.findings.append("paypanel \(shown) ended with \(result.termination): \(result.stderr.prefix(300))")
            }
            if CrashSoak.mentionsBusyDatabase(result.stderr) {
                report.busyErrors += 1
                report.findings.append("paypanel \(shown) surfaced a busy database: \(result.stderr.prefix(300))")
            }
        }
        return results
    }

    // MARK: - Exactly once

    /// The races' own expectations, on top of the audit's ledger agreement.
    private func checkExactlyOnce(_ effects: [ProcessorEffect]) {
        for id in report.sharedIntents + report.keylessIntents {
            guard let machine = try? paymentLedger.loadMachine(id) else { continue }
            let attempts = Set(machine.attempts.map(\.id))
            let mine = effects.filter { attempts.contains($0.reference) && $0.status == .approved }
            let authorized = mine.filter { $0.operation == .authorize }.count
            let captured = mine.filter { $0.operation == .capture }.count
            let refunded = mine.filter { $0.operation == .refund }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            if machine.attempts.count != 1 || authorized != 1 {
                report.findings.append("\(id): \(machine.attempts.count) attempts and \(authorized) approved authorizations for racing authorizes (expected 1 and 1)")
            }
            if captured != 1 { report.findings.append("\(id): captured \(captured) times by racing captures (expected once)") }
            if refunded > machine.intent.amountCaptured {
                report.findings.append("\(id): refunded \(refunded) of a capture of \(machine.intent.amountCaptured)")
            }
            if report.sharedIntents.contains(id) && refunded != 600 {
                report.findings.append("\(id): racing 6.00 refunds on 10.00 refunded \(refunded) (expected exactly one: 600)")
            }
            if report.keylessIntents.contains(id) && refunded != 300 {
                report.findings.append("\(id): 3.00 refunds under one idempotency key refunded \(refunded) (expected once: 300)")
            }
        }
    }
}

/// What the concurrency soak runs.
public struct ConcurrencySoakConfiguration: Sendable {
    /// Processes started together in each race.
    public var processes: Int
    public var rounds: Int
    public var seed: UInt64
    public var executable: String
    public var directory: String
    /// Real processor latency, so calls overlap.
    public var latency = "20ms±10ms"
    public var requestTimeout: Duration = .seconds(120)

    /// `rounds` rounds of races between `processes` processes of `executable`.
    public init(processes: Int, rounds: Int, seed: UInt64, executable: String, directory: String) {
        self.processes = processes
        self.rounds = rounds
        self.seed = seed
        self.executable = executable
        self.directory = directory
    }

    public var databasePath: String { directory + "/paypanel.sqlite" }
    public var ledgerPath: String { directory + "/paypanel-processor.sqlite" }
}

/// What the concurrency soak did and found.
public struct ConcurrencySoakReport: Sendable, JSONRepresentable {
    public let processes: Int
    public let rounds: Int
    public let seed: UInt64
    public var processesRun = 0
    public var creates = 0
    public var authorizations = 0
    public var captures = 0
    public var refunds = 0
    /// Requests refused as they should be (the race's losers: in flight, in progress, too much).
    public var expectedRejections = 0
    public var busyErrors = 0
    public var sharedIntents: [String] = []
    public var keylessIntents: [String] = []
    public var findings: [String] = []
    package var audit = AuditReport()
    public var seconds = 0.0
    /// Standard error of every process, for the card-data scan (not in the JSON).
    public var stderrs: [String] = []

    /// An empty report.
    public init(processes: Int, rounds: Int, seed: UInt64) {
        self.processes = processes
        self.rounds = rounds
        self.seed = seed
    }

    public var failures: [String] { findings + audit.findings }

    public var json: JSONValue {
        .orderedObject([
            ("check", "concurrency"), ("processes", .number(processes)), ("rounds", .number(rounds)), ("seed", .string(String(seed))),
            ("processesRun", .number(processesRun)), ("creates", .number(creates)), ("authorizations", .number(authorizations)),
            ("captures", .number(captures)), ("refunds", .number(refunds)), ("expectedRejections", .number(expectedRejections)),
            ("busyErrors", .number(busyErrors)), ("audit", audit.json), ("failures", .array(failures.map(JSONValue.string))),
            ("seconds", .number(JSONNumber(validatedLiteral: String(format: "%.1f", seconds)))),
            ("result", .string(failures.isEmpty ? "pass" : "fail")),
        ])
    }
}
