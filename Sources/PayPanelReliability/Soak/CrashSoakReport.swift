import Foundation
import PayPanel

/// What the crash soak runs: how many flows, from which seed, with which binary and files.
public struct CrashSoakConfiguration: Sendable {
    public var iterations: Int
    public var seed: UInt64
    /// The `paypanel` binary each request runs.
    public var executable: String
    /// Where the payments database, the processor ledger and temporary files go.
    public var directory: String
    /// The mock processor's latency (`--latency`), in virtual time.
    public var latency = "200ms±150ms"
    /// The client timeout of processor calls (`--processor-timeout`, seconds).
    public var processorTimeout = "10"
    /// The virtual time of the first request.
    public var start = Date(timeIntervalSince1970: 1_795_939_200)  // 2026-11-29T08:00:00Z
    /// The longest one request may take (real time) before it counts as hung.
    public var requestTimeout: Duration = .seconds(60)

    /// `iterations` flows from `seed`, run with `executable` in `directory`.
    public init(iterations: Int, seed: UInt64, executable: String, directory: String) {
        self.iterations = iterations
        self.seed = seed
        self.executable = executable
        self.directory = directory
    }

    /// The payments database every request is given as `$PAYPANEL_DB`: nil for a SQLite file in
    /// `directory`, or a `postgresql://…?schema=…` URL (the caller creates and drops the schema).
    public var database: String?

    public var databasePath: String { directory + "/paypanel.sqlite" }
    /// What the requests are told (`$PAYPANEL_DB`): `database`, else the SQLite file.
    public var databaseArgument: String { database ?? databasePath }
    public var ledgerPath: String { directory + "/paypanel-processor.sqlite" }
}

/// What the crash soak did and found.
public struct CrashSoakReport: Sendable, JSONRepresentable {
    public let iterations: Int
    public let seed: UInt64
    /// Child processes run (every request, reconcile and token seal excluded).
    public var requests = 0
    public var reconciles = 0
    public var tokensSealed = 0
    /// Steps not run because the intent was not in the state they need.
    public var stepsSkipped = 0
    public var flows: [String: Int] = [:]
    /// Iterations that armed a fault point.
    public var faultsArmed = 0
    /// Kills by fault point name.
    public var faultKills: [String: Int] = [:]
    /// Armed fault points the flow never reached (a decline, say).
    public var faultsNotReached = 0
    /// Requests killed at a random moment.
    public var timerKills = 0
    /// Problems with the requests themselves: crashes, hangs, busy errors.
    public var findings: [String] = []
    /// The audit after the final reconciliation.
    package var audit = AuditReport()
    /// Wall time of the whole soak.
    public var seconds = 0.0
    /// Standard error of every request, for the card-data scan (not in the JSON).
    public var stderrs: [String] = []

    /// An empty report.
    public init(iterations: Int, seed: UInt64) {
        self.iterations = iterations
        self.seed = seed
    }

    /// SIGKILLs delivered (fault points and timers).
    public var kills: Int { faultKills.values.reduce(0, +) + timerKills }

    /// Every failure: request findings and audit findings.
    public var failures: [String] { findings + audit.findings }

    public var json: JSONValue {
        .orderedObject([
            ("check", "crash"), ("iterations", .number(iterations)), ("seed", .string(String(seed))),
            ("requests", .number(requests)), ("reconciles", .number(reconciles)), ("stepsSkipped", .number(stepsSkipped)),
            ("flows", .object(JSONObject(flows.sorted { $0.key < $1.key }.map { (key: $0.key, value: .number($0.value)) }))),
            ("faultsArmed", .number(faultsArmed)), ("faultsNotReached", .number(faultsNotReached)),
            ("faultKills", .object(JSONObject(faultKills.sorted { $0.key < $1.key }.map { (key: $0.key, value: .number($0.value)) }))),
            ("timerKills", .number(timerKills)), ("kills", .number(kills)),
            ("audit", audit.json), ("failures", .array(failures.map(JSONValue.string))),
            ("seconds", .number(JSONNumber(validatedLiteral: String(format: "%.1f", seconds)))),
            ("result", .string(failures.isEmpty ? "pass" : "fail")),
        ])
    }
}
