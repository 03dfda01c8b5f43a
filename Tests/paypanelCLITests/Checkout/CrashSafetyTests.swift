import Foundation
import PayPanel
import TestSupport
import Testing

/// Crash safety: for every fault point, the command that reaches it is killed there with
/// SIGKILL ($PAYPANEL_FAULT), then `paypanel reconcile` (now, and past the grace period) must
/// bring the payments database and the processor's ledger into agreement: no approval lost,
/// nothing authorized, captured or refunded twice, the invariants intact. Commands run under
/// an idempotency key are retried with it after the key's lease, and must resume the crashed
/// run rather than start a second payment or refund.
@Suite struct CrashSafetyTests {
    static let t0 = CheckoutCLI.start                 // 2026-11-29T12:00:00Z: setup and crash
    static let afterLease = "2026-11-29T12:06:00Z"     // past the 5-minute grace and key lease
    static let expiry = "2026-12-06T12:00:00Z"         // the authorization's capture deadline

    /// A command that calls the processor, with the setup it needs and where it ends.
    enum Scenario: String, CaseIterable, Sendable {
        case authorizeManual = "authorize (manual capture)"
        case authorizeAutomatic = "authorize (automatic capture)"
        case challengePass = "challenge pass"
        case capture = "capture"
        case void = "void"
        case cancel = "cancel"
        case refund = "refund"
        case expiryTimer = "reconcile (authorization expiry)"

        /// The fault points the command passes, in order.
        var points: [String] {
            switch self {
            case .authorizeManual, .challengePass: ["before-authorize", "after-authorize"]
            case .authorizeAutomatic: ["before-authorize", "after-authorize", "before-capture", "after-capture"]
            case .capture: ["before-capture", "after-capture"]
            case .void, .cancel, .expiryTimer: ["before-void", "after-void"]
            case .refund: ["before-refund", "after-refund"]
            }
        }

        /// The idempotency key the command runs under, when it takes one.
        var idempotencyKey: String? {
            switch self {
            case .authorizeManual, .authorizeAutomatic: "crash-pay-1"
            case .refund: "crash-refund-1"
            default: nil
            }
        }

        /// When the command runs.
        var crashTime: String { self == .expiryTimer ? CrashSafetyTests.expiry : CrashSafetyTests.t0 }

        /// Prepares the intent the command works on; its id.
        func setUp(_ cli: CheckoutCLI) throws -> String {
            switch self {
            case .authorizeManual: return try cli.createIntent("10.00", capture: "manual")
            case .authorizeAutomatic: return try cli.createIntent("10.00", capture: "automatic")
            case .challengePass:
                let id = try cli.createIntent()
                let challenged = try cli.run(["payments", "authorize", id, "--card", "4000002760003184"])
                #expect(challenged.status == 0, "\(challenged)")
                return id
            case .capture, .void, .cancel, .expiryTimer: return try cli.authorizedIntent()
            case .refund: return try cli.capturedIntent("100.00")
            }
        }

        /// The command, for intent `id`.
        func command(_ id: String) -> [String] {
            let key = idempotencyKey.map { ["--idempotency-key", $0] } ?? []
            return switch self {
            case .authorizeManual, .authorizeAutomatic: ["payments", "authorize", id, "--card", "4242424242424242"] + key
            case .challengePass: ["payments", "challenge", id, "pass"]
            case .capture: ["payments", "capture", id, "--amount", "6.00"]
            case .void: ["payments", "void", id]
            case .cancel: ["payments", "cancel", id]
            case .refund: ["payments", "refund", id, "--amount", "30.00"] + key
            case .expiryTimer: ["reconcile"]
            }
        }

        /// Where the intent ends once reconciled, when the process died at `point`. Only an
        /// authorization that never reached the processor fails (its card data died with the
        /// process); every other call is found, or sent again with the same reference.
        func finalStatus(crashedAt point: String) -> String {
            switch self {
            case .authorizeManual where point == "before-authorize", .authorizeAutomatic where point == "before-authorize":
                "requires_payment_method"
            case .authorizeManual, .challengePass: "requires_capture"
            case .authorizeAutomatic, .capture, .refund: "succeeded"
            case .void, .cancel: "canceled"
            case .expiryTimer: "expired"
            }
        }
    }

    /// A scenario and a fault name (a point, or `before-/after-processor-call`) it reaches.
    struct CrashCase: Sendable, CustomStringConvertible {
        let scenario: Scenario
        let fault: String
        /// The point the process dies at: the first of the scenario's that the fault matches.
        var point: String { scenario.points.first { FaultSelector(fault)?.matches(Self.faultPoint($0)) == true } ?? "?" }
        var description: String { "\(scenario.rawValue) killed at \(fault)" }

        static func faultPoint(_ name: String) -> FaultPoint {
            FaultPoint.all.first { $0.description == name }!  // names from `Scenario.points`, all real points
        }
    }

    /// Every (scenario, fault name) pair where the fault is reached.
    static let cases: [CrashCase] = Scenario.allCases.flatMap { scenario in
        FaultSelector.names.map { CrashCase(scenario: scenario, fault: $0) }.filter { $0.point != "?" }
    }

    @Test func everyFaultNameAndEveryFaultPointIsExercised() {
        #expect(Set(Self.cases.map(\.fault)) == Set(FaultSelector.names))
        #expect(Set(Self.cases.map(\.point)) == Set(FaultPoint.all.map(\.description)))
        #expect(Scenario.allCases.flatMap(\.points).allSatisfy { name in FaultPoint.all.contains { $0.description == name } })
    }

    @Test(arguments: cases)
    func aCrashAtAnyFaultPointIsReconciledIntoAgreement(crash: CrashCase) throws {
        let cli = try CheckoutCLI()
        let scenario = crash.scenario
        let id = try scenario.setUp(cli)
        let ledgerBefore = try cli.ledger()

        let killed = try cli.run(scenario.command(id), now: scenario.crashTime, fault: crash.fault)
        #expect(killed.signal == SIGKILL, "the process must die by SIGKILL at \(crash.point): \(killed)")
        #expect(killed.stdout.isEmpty)
        // Mid-flight, the two sides may differ only in what the unknown outcome explains.
        #expect(try cli.disagreements(settled: false, now: scenario.crashTime).isEmpty)
        if crash.point == scenario.points.first {
            #expect(try cli.ledger() == ledgerBefore, "killed before the call: the processor saw nothing")
        }

        if let key = scenario.idempotencyKey {
            // Within the key's lease the crashed run still holds it.
            let early = try cli.run(scenario.command(id), now: scenario.crashTime)
            #expect(early.status == 1, "\(early)")
            #expect(early.stderr.contains("a request with idempotency key \"\(key)\" has been in progress since \(scenario.crashTime)"), "\(early)")
        }

        let now = try cli.run(["reconcile"], now: scenario.crashTime)
        #expect(now.status == 0, "\(now)")
        let laterTime = scenario == .expiryTimer ? "2026-12-06T12:06:00Z" : Self.afterLease
        if scenario.idempotencyKey != nil {
            // After the lease the key is taken over: the crashed run's attempt or refund is
            // resumed (looked up), never repeated.
            let retried = try cli.run(scenario.command(id), now: laterTime)
            let failed = scenario.finalStatus(crashedAt: crash.point) == "requires_payment_method"
            #expect(retried.status == (failed ? 1 : 0), "\(retried)")
            #expect(retried.signal == nil && !retried.stderr.contains("replayed"))
            if failed { #expect(retried.stderr.contains("the processor has no record of the authorization"), "\(retried)") }
        }
        let later = try cli.run(["reconcile"], now: laterTime)
        #expect(later.status == 0, "\(later)")

        let shown = try cli.show(id)
        #expect(shown["status"]?.stringValue == scenario.finalStatus(crashedAt: crash.point), "\(shown)")
        #expect(shown["processing"] == .null)
        #expect(shown["attempts"]?.arrayValue?.count == 1, "one attempt: nothing authorized twice")
        switch scenario {
        case .refund:
            #expect(shown["refunds"]?.arrayValue?.count == 1 && shown["amountRefunded"] == 3000, "refunded once: \(shown)")
        case .capture:
            #expect(shown["amountCaptured"] == 600)
        case .authorizeAutomatic where crash.point != "before-authorize":
            #expect(shown["amountCaptured"] == 1000)
        default:
            break
        }
        let ledger = try cli.ledger()
        #expect(ledger.filter { $0.hasPrefix("authorize:") }.count <= 1, "\(ledger)")
        #expect(ledger.filter { $0 == "capture:approved" }.count <= 1 && ledger.filter { $0 == "refund:approved" }.count <= 1, "\(ledger)")
        let disagreements = try cli.disagreements(settled: true, now: laterTime)
        #expect(disagreements.isEmpty, "\(disagreements)")
        let quiet = try cli.run(["reconcile", "--json"], now: laterTime)
        #expect(try cli.json(quiet)["lookups"] == [], "nothing is left to look up")
    }
}
