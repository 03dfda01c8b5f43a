import Foundation
import PayPanel

/// What the chaos soak runs: how many clients for how long, from which seed, with which binary,
/// in which directory, how often a server is killed, and the timings that make unknown
/// outcomes happen and settle quickly.
public struct ChaosSoakConfiguration: Sendable {
    public var clients: Int
    /// How long the clients start flows and the killer kills (real seconds).
    public var seconds: Double
    public var seed: UInt64
    /// The `paypanel` binary both servers run.
    public var executable: String
    /// Where the payments database, the processor's ledger and the servers' output go.
    public var directory: String
    /// The wait before each SIGKILL, drawn from this range (seconds).
    public var killInterval: ClosedRange<Double> = 3...8
    /// serve's `--processor-timeout` (seconds): SLOW_2S is slower than it.
    public var processorTimeout = "1"
    /// processor serve's `--hold` (seconds) for TIMEOUT_THEN_APPROVED.
    public var hold = "3"
    /// How long a client waits for one intent to settle before giving its flow up.
    public var stepSettleTimeout: Double = 45
    /// How long the end waits for serve's worker to settle every intent: bounds a hang, never a
    /// measurement (a loaded machine is slow).
    public var settleTimeout: Double = 180
    /// The secret key serve uses at the processor (its own account there).
    public var processorKey = "sk_test_chaos_soak"

    /// `clients` clients for `seconds` from `seed`, run with `executable` in `directory`.
    public init(clients: Int, seconds: Double, seed: UInt64, executable: String, directory: String) {
        self.clients = clients
        self.seconds = seconds
        self.seed = seed
        self.executable = executable
        self.directory = directory
    }

    public var databasePath: String { directory + "/payments.sqlite" }
    public var ledgerPath: String { directory + "/processor.sqlite" }
}

/// What the chaos soak did and found.
public struct ChaosSoakReport: Sendable, JSONRepresentable {
    public let clients: Int
    public let seconds: Double
    public let seed: UInt64
    /// HTTP requests the clients sent (every try of every POST, and the reads).
    public var requests = 0
    /// Flows started, by name.
    public var flows: [String: Int] = [:]
    /// Flows given up (an intent in flight too long, a create never answered).
    public var flowsAbandoned = 0
    /// Every answer, counted by kind (`confirm 200 requires_capture`, `pay 200 failure`, `refund no answer`).
    public var answers: [String: Int] = [:]
    public var serveKills = 0
    public var processorKills = 0
    public var serveRestarts = 0
    public var processorRestarts = 0
    public var servePortReused = 0
    public var processorPortReused = 0
    /// How long the worker took, after the clean restart, to settle what the kills left.
    public var settleSeconds = 0.0
    /// Answers that assert something about the money, each checked against the processor.
    public var answersAudited = 0
    /// Answers that contradict the money at the processor.
    public var contradictions: [String] = []
    /// Problems of the run itself: unexpected exits, unclean stops, unsettled intents, card data in output.
    public var findings: [String] = []
    /// The both-ledger audit after everything settled.
    package var audit = AuditReport()
    /// The whole run, start to audit.
    public var elapsed = 0.0

    /// An empty report.
    public init(clients: Int, seconds: Double, seed: UInt64) {
        self.clients = clients
        self.seconds = seconds
        self.seed = seed
    }

    public var kills: Int { serveKills + processorKills }

    /// Every answer recorded.
    public var answerCount: Int { answers.values.reduce(0, +) }

    /// Every failure: run findings, audit findings and contradictions.
    public var failures: [String] { findings + audit.findings + contradictions.map { "contradiction: \($0)" } }

    public var json: JSONValue {
        func counts(_ dictionary: [String: Int]) -> JSONValue {
            .object(JSONObject(dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: .number($0.value)) }))
        }
        func decimal(_ value: Double) -> JSONValue { .number(JSONNumber(validatedLiteral: String(format: "%.1f", value))) }
        return .orderedObject([
            ("check", "chaos"), ("clients", .number(clients)), ("seconds", decimal(seconds)), ("seed", .string(String(seed))),
            ("requests", .number(requests)), ("flows", counts(flows)), ("flowsAbandoned", .number(flowsAbandoned)),
            ("answers", counts(answers)), ("answerCount", .number(answerCount)),
            ("serveKills", .number(serveKills)), ("processorKills", .number(processorKills)), ("kills", .number(kills)),
            ("serveRestarts", .number(serveRestarts)), ("processorRestarts", .number(processorRestarts)),
            ("servePortReused", .number(servePortReused)), ("processorPortReused", .number(processorPortReused)),
            ("settleSeconds", decimal(settleSeconds)), ("answersAudited", .number(answersAudited)),
            ("contradictions", .array(contradictions.map(JSONValue.string))),
            ("audit", audit.json), ("failures", .array(failures.map(JSONValue.string))),
            ("elapsed", decimal(elapsed)), ("result", .string(failures.isEmpty ? "pass" : "fail")),
        ])
    }
}
