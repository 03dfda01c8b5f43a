import Foundation
import PayPanel

/// The crash soak: runs payment flows against the mock processor one request per child process
/// (as a server would), kills those processes with SIGKILL — at every named fault point and at
/// random moments — lets `paypanel reconcile` finish what they left, then audits everything:
/// the processor's ledger against the database (nothing lost, nothing charged twice), the
/// DESIGN §4 invariants, and the replay of every intent's history.
///
/// Time is virtual (`PAYPANEL_NOW`), advancing a minute per request, so runs are repeatable;
/// the processor's latency and timeouts move each process's clock instead of sleeping. Random
/// kills land after a seeded delay measured on the real clock, so where exactly they land
/// depends on the machine's speed; the seed fixes everything else.
public final class CrashSoak {
    public let configuration: CrashSoakConfiguration
    private var random: SeededRandomNumberGenerator
    private var now: Date
    private var report: CrashSoakReport
    private let paymentLedger: PaymentLedger
    /// Recent unkilled durations per kind of request, for drawing kill moments.
    private var durations: [String: [Duration]] = [:]

    /// Opens (creating and migrating) the soak's payments database: the SQLite file in the
    /// configuration's directory, or `store` when given — the store of `configuration.database`
    /// (PostgreSQL), opened and migrated by the caller, through which the audit reads what the
    /// killed requests left.
    public init(configuration: CrashSoakConfiguration, store: (any PaymentStore)? = nil) throws {
        self.configuration = configuration
        random = SeededRandomNumberGenerator(seed: configuration.seed)
        now = configuration.start
        report = CrashSoakReport(iterations: configuration.iterations, seed: configuration.seed)
        if let store {
            paymentLedger = PaymentLedger(store: store)
        } else {
            let database = try Database.openMigrated(path: configuration.databasePath, set: .main, clock: ManualClock(configuration.start))
            paymentLedger = PaymentLedger(store: SQLitePaymentStore(database: database))
        }
    }

    /// Runs every iteration, the final reconciliation and the audit. `readLedger` reads the
    /// processor's ledger at a time; `progress` is told after each iteration.
    package func run(
        readLedger: (Date) throws -> [ProcessorEffect], progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws -> CrashSoakReport {
        let clock = ContinuousClock()
        let started = clock.now
        let faultNames = FaultSelector.names
        for iteration in 0..<configuration.iterations {
            let injection: Injection
            let flow: CrashFlow
            if iteration < faultNames.count {
                // Every named fault point first, each with a flow that reaches it.
                let name = faultNames[iteration]
                injection = .fault(name)
                flow = CrashFlow.reaching(name, choice: Int(random.next() % 1000))
            } else {
                flow = CrashFlow.allCases[Int(random.next() % UInt64(CrashFlow.allCases.count))]
                switch random.next() % 3 {
                case 0: injection = .none
                case 1: injection = .fault(faultNames[Int(random.next() % UInt64(faultNames.count))])
                default: injection = .timer(step: Int(random.next() % UInt64(flow.steps.count + 1)))
                }
            }
            try runIteration(iteration, flow: flow, injection: injection)
            progress(iteration + 1, configuration.iterations)
        }
        // Much later: authorizations lapse, abandoned intents are canceled, everything settles.
        now = now.addingTimeInterval(8 * 24 * 3600)
        for _ in 0..<2 { _ = try reconcile() }
        report.audit = try PaymentsAudit.run(ledger: paymentLedger, effects: try readLedger(now), expectSettled: true)
        report.seconds = started.duration(to: clock.now).timeInterval
        return report
    }

    // MARK: - One iteration

    private enum Injection {
        case none
        /// Arm `PAYPANEL_FAULT=name` on every request until it fires once.
        case fault(String)
        /// Kill request `step` (0: the create) after a random delay.
        case timer(step: Int)
    }

    private func runIteration(_ iteration: Int, flow: CrashFlow, injection: Injection) throws {
        report.flows[flow.rawValue, default: 0] += 1
        var armed: String?
        if case .fault(let name) = injection {
            armed = name
            report.faultsArmed += 1
        }
        let timerStep: Int? = if case .timer(let step) = injection { step } else { nil }

        // Create (idempotent: a create killed before it answered is simply sent again).
        var intentID: String?
        var lastError = ""
        for round in 0..<3 {
            let kill = timerStep == 0 && round == 0 ? killDelay(for: "create") : nil
            let result = try request(
                ["payments", "create", "--amount", "10.00", "--capture", flow.captureMethod.rawValue, "--order", "soak-\(iteration)",
                 "--idempotency-key", "soak-\(configuration.seed)-\(iteration)", "--json"],
                kind: "create", fault: nil, killAfter: kill)
            if result.wasKilled { continue }
            intentID = (try? JSONParser().parse(Array(result.stdout.utf8)))?["id"]?.stringValue
            lastError = result.stderr
            break
        }
        guard let intentID else {
            report.findings.append("iteration \(iteration): the intent could not be created (\(lastError.isEmpty ? "three tries killed" : String(lastError.prefix(200))))")
            return
        }

        for (index, step) in flow.steps.enumerated() {
            guard let intent = try paymentLedger.intent(intentID), let arguments = arguments(for: step, intent: intent, iteration: iteration)
            else {
                report.stepsSkipped += 1
                continue
            }
            let kind = step.kindName
            let kill = timerStep == index + 1 ? killDelay(for: kind) : nil
            if case .authorizeToken(let card) = step {
                try sealToken(card: card, into: arguments.last ?? "")
            }
            let result = try request(arguments, kind: kind, fault: armed, killAfter: kill)
            if case .authorizeToken = step { unlink(arguments.last ?? "") }
            if result.wasKilled {
                if armed != nil {
                    report.faultKills[armed ?? "", default: 0] += 1
                    armed = nil
                } else {
                    report.timerKills += 1
                }
                _ = try reconcile()  // what a restarted server runs first
            }
            now = now.addingTimeInterval(60)
        }
        if armed != nil { report.faultsNotReached += 1 }
        // Past the grace period: calls the processor never received fail, late answers settle.
        now = now.addingTimeInterval(6 * 60)
        for _ in 0..<2 { _ = try reconcile() }
        now = now.addingTimeInterval(60)
    }

    /// The command line of `step` for `intent`, or nil when the intent is not in a state the
    /// step applies to (it happened already, or cannot happen any more).
    private func arguments(for step: CrashFlow.Step, intent: PaymentIntent, iteration: Int) -> [String]? {
        let id = intent.id
        switch step {
        case .authorizeCard(let number, let holder):
            guard intent.status == .requiresPaymentMethod, intent.attemptCount < paymentLedger.policy.maximumAttempts else { return nil }
            return ["payments", "authorize", id, "--card", number, "--expiry", "12/30"] + (holder.map { ["--holder", $0] } ?? [])
        case .authorizeToken:
            guard intent.status == .requiresPaymentMethod, intent.attemptCount < paymentLedger.policy.maximumAttempts else { return nil }
            report.tokensSealed += 1
            // Sealed with the test identity, so the test root is asked for, as a user would. The
            // token's path stays last: the caller seals into it and removes it.
            return ["payments", "authorize", id, "--test-root", "--token", configuration.directory + "/token-\(iteration)-\(report.tokensSealed).json"]
        case .capture(let amount):
            guard intent.status == .requiresCapture else { return nil }
            return ["payments", "capture", id] + (amount.map { ["--amount", $0] } ?? [])
        case .void:
            guard intent.status == .requiresCapture else { return nil }
            return ["payments", "void", id]
        case .refund(let amount):
            guard intent.status == .succeeded, intent.amountRefundable > 0 else { return nil }
            if let amount, let minor = try? Amount.parse(amount, currency: intent.currency).minorUnits, minor <= intent.amountRefundable {
                return ["payments", "refund", id, "--amount", amount]
            }
            return ["payments", "refund", id]
        }
    }

    // MARK: - Requests

    private var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": configuration.directory, "NO_COLOR": "1",
            "PAYPANEL_DB": configuration.databaseArgument, "PAYPANEL_PROCESSOR_DB": configuration.ledgerPath,
            "PAYPANEL_NOW": Timestamp.format(now),
        ]
    }

    /// Runs one request; a SIGKILL we (or the armed fault point) sent is expected, any other
    /// signal, a timeout, a usage error or a busy database is a finding.
    private func request(_ arguments: [String], kind: String, fault: String?, killAfter: Duration?) throws -> ChildProcess.Result {
        var arguments = arguments
        var environment = environment
        if kind != "create" {
            arguments += ["--latency", configuration.latency, "--latency-seed", String(random.next() % 1_000_000),
                          "--processor-timeout", configuration.processorTimeout]
            if let fault { environment["PAYPANEL_FAULT"] = fault }
        }
        let result = try ChildProcess.run(
            configuration.executable, arguments, environment: environment, directory: configuration.directory,
            killAfter: killAfter, timeout: configuration.requestTimeout)
        report.requests += 1
        report.stderrs.append(result.stderr)
        let shown = arguments.prefix(3).joined(separator: " ")
        switch result.termination {
        case .signaled(SIGKILL) where fault != nil || killAfter != nil:
            break
        case .exited(let code) where code == 0 || code == 1:
            durations[kind, default: []].append(result.duration)
            if durations[kind, default: []].count > 20 { durations[kind]?.removeFirst() }
        default:
            report.findings.append("paypanel \(shown) ended with \(result.termination): \(result.stderr.prefix(300))")
        }
        if Self.mentionsBusyDatabase(result.stderr) {
            report.findings.append("paypanel \(shown) surfaced a busy database: \(result.stderr.prefix(300))")
        }
        return result
    }

    /// `paypanel reconcile` at the soak's current time, never killed.
    private func reconcile() throws -> ChildProcess.Result {
        report.reconciles += 1
        return try request(["reconcile", "--json"], kind: "reconcile", fault: nil, killAfter: nil)
    }

    /// Seals an Apple Pay token for 10.00 USD at the soak's time into `path`.
    private func sealToken(card: String, into path: String) throws {
        let result = try ChildProcess.run(
            configuration.executable, ["token", "seal", "--card", card, "--amount", "10.00"], environment: environment,
            directory: configuration.directory, timeout: configuration.requestTimeout)
        guard result.exitCode == 0 else {
            report.findings.append("token seal failed (\(result.termination)): \(result.stderr.prefix(300))")
            return
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data(result.stdout.utf8), attributes: [.posixPermissions: 0o600])
    }

    /// A random moment within (a little beyond) how long this kind of request usually takes.
    private func killDelay(for kind: String) -> Duration {
        let recent = (durations[kind] ?? []).sorted()
        let typical = recent.isEmpty ? Duration.milliseconds(40) : recent[recent.count / 2]
        let fraction = Double(random.next() % 1200) / 1000
        return .nanoseconds(Int64(Double(typical.wholeNanoseconds) * fraction))
    }

    /// True when `text` shows SQLITE_BUSY / SQLITE_LOCKED, or on PostgreSQL a serialization
    /// failure or deadlock the store should have retried (40001, 40P01), reaching the user.
    public static func mentionsBusyDatabase(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return ["database is locked", "sqlite error 5", "sqlite error 6", "sqlite_busy", "sqlite_locked", "database table is locked",
                "sqlstate 40001", "sqlstate 40p01", "database_busy"]
            .contains { lowered.contains($0) }
    }
}

extension CrashFlow.Step {
    /// `authorize`, `capture`, `void`, `refund`: for timing statistics.
    var kindName: String {
        switch self {
        case .authorizeCard, .authorizeToken: "authorize"
        case .capture: "capture"
        case .void: "void"
        case .refund: "refund"
        }
    }
}
