import Foundation
import PayPanel

/// What the processor crash soak runs: how many flows, from which seed, with which binary, in
/// which directory, and the timings that make unknown outcomes happen quickly.
public struct ProcessorSoakConfiguration: Sendable {
    public var iterations: Int
    public var seed: UInt64
    /// The `paypanel` binary both servers run.
    public var executable: String
    /// Where the payments database, the processor's ledger and the servers' output go.
    public var directory: String
    /// serve's `--processor-timeout` (seconds): short, so SLOW_2S is slower than it and the
    /// worker's grace (timeout + 5 s) stays short too.
    public var processorTimeout = "1"
    /// processor serve's `--hold` (seconds): how long TIMEOUT_THEN_APPROVED holds a connection.
    public var hold = "3"
    /// processor serve's fixed clock (`--now`): its ledger's times do not depend on the date.
    public var processorNow = "2026-12-01T10:00:00Z"
    /// The longest an intent may stay `processing` (real time) before it counts as stuck:
    /// bounds a hang, never a measurement (a loaded machine is slow).
    public var settleTimeout: Double = 120
    /// The secret key serve uses at the processor (its own account there).
    public var processorKey = "sk_test_processor_soak"

    /// `iterations` flows from `seed`, run with `executable` in `directory`.
    public init(iterations: Int, seed: UInt64, executable: String, directory: String) {
        self.iterations = iterations
        self.seed = seed
        self.executable = executable
        self.directory = directory
    }

    public var databasePath: String { directory + "/payments.sqlite" }
    public var ledgerPath: String { directory + "/processor.sqlite" }
}

/// What the processor crash soak did and found.
public struct ProcessorSoakReport: Sendable, JSONRepresentable {
    public let iterations: Int
    public let seed: UInt64
    /// Calls made to serve (creates, steps, reads).
    public var requests = 0
    public var flows: [String: Int] = [:]
    /// Steps not run because the intent was not in the state they need.
    public var stepsSkipped = 0
    /// serve's fault points armed, and those that killed it, by name.
    public var faultsArmed = 0
    public var faultKills: [String: Int] = [:]
    public var faultsNotReached = 0
    /// SIGKILLs of serve and of processor serve at random moments.
    public var serveKills = 0
    public var processorKills = 0
    /// processor serve killed while a network fault (by trigger name) was in progress.
    public var networkFaultKills: [String: Int] = [:]
    /// Restarts of each server, and how often processor serve got its old port back.
    public var serveRestarts = 0
    public var processorRestarts = 0
    public var processorPortReused = 0
    /// Times the client waited for serve's worker to resolve an unknown outcome.
    public var settleWaits = 0
    /// Problems of the run itself: unexpected exits, stuck intents, refused calls.
    public var findings: [String] = []
    /// The audit after everything settled.
    package var audit = AuditReport()
    public var seconds = 0.0

    /// An empty report.
    public init(iterations: Int, seed: UInt64) {
        self.iterations = iterations
        self.seed = seed
    }

    /// Every SIGKILL delivered.
    public var kills: Int { faultKills.values.reduce(0, +) + serveKills + processorKills }

    /// Every failure: run findings and audit findings.
    public var failures: [String] { findings + audit.findings }

    public var json: JSONValue {
        func counts(_ dictionary: [String: Int]) -> JSONValue {
            .object(JSONObject(dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: .number($0.value)) }))
        }
        return .orderedObject([
            ("check", "processor-crash"), ("iterations", .number(iterations)), ("seed", .string(String(seed))),
            ("requests", .number(requests)), ("stepsSkipped", .number(stepsSkipped)), ("flows", counts(flows)),
            ("faultsArmed", .number(faultsArmed)), ("faultsNotReached", .number(faultsNotReached)), ("faultKills", counts(faultKills)),
            ("serveKills", .number(serveKills)), ("processorKills", .number(processorKills)), ("networkFaultKills", counts(networkFaultKills)),
            ("kills", .number(kills)), ("serveRestarts", .number(serveRestarts)), ("processorRestarts", .number(processorRestarts)),
            ("processorPortReused", .number(processorPortReused)), ("settleWaits", .number(settleWaits)),
            ("audit", audit.json), ("failures", .array(failures.map(JSONValue.string))),
            ("seconds", .number(JSONNumber(validatedLiteral: String(format: "%.1f", seconds)))),
            ("result", .string(failures.isEmpty ? "pass" : "fail")),
        ])
    }
}
