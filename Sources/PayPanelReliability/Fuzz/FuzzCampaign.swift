import Foundation
import Synchronization
import PayPanel

/// Runs a fuzz target for a number of seeded iterations: each input is timed, its answer
/// checked (`FuzzTarget.problems`), and every failing input kept with why it failed.
public struct FuzzCampaign {
    public let target: FuzzTarget
    public let iterations: Int
    public let seed: UInt64
    /// The longest one input may take; slower is reported as a (near) hang.
    public let timeLimit: Duration

    /// Called from a watchdog thread when one input has run for `hangLimit`: the process
    /// cannot get that input back by itself, so the caller saves it and ends the process.
    public var onHang: (@Sendable (_ input: [UInt8], _ elapsed: Duration) -> Void)?
    /// How long one input may run before `onHang` is called (default: ten time limits).
    public var hangLimit: Duration

    /// A campaign of `iterations` mutants of `target`'s seeds, drawn from `seed`.
    public init(target: FuzzTarget, iterations: Int, seed: UInt64, timeLimit: Duration = .seconds(2)) {
        self.target = target
        self.iterations = iterations
        self.seed = seed
        self.timeLimit = timeLimit
        self.hangLimit = max(timeLimit * 10, .seconds(10))
    }

    /// Runs `extraInputs` (regression inputs, raw fixture files) first, then the mutants.
    /// `beforeInput` sees each input before it runs (the CLI keeps it on disk, so a crash
    /// leaves it behind); `progress` is told every 100 inputs.
    public func run(
        extraInputs: [[UInt8]] = [], beforeInput: ([UInt8]) -> Void = { _ in },
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) -> FuzzReport {
        var report = FuzzReport(kind: target.kind, iterations: iterations, seed: seed)
        var mutator = JSONMutator(seed: seed)
        let watchdog = FuzzWatchdog(limit: hangLimit, onHang: onHang)
        defer { watchdog.stop() }
        let started = ContinuousClock.now
        let total = extraInputs.count + iterations
        for index in 0..<total {
            let mutant: JSONMutator.Mutant
            if index < extraInputs.count {
                mutant = JSONMutator.Mutant(bytes: extraInputs[index], mutations: [])
            } else {
                mutant = target.input(using: &mutator)
            }
            beforeInput(mutant.bytes)
            let inputStarted = ContinuousClock.now
            watchdog.watch(mutant.bytes, since: inputStarted)
            let (verdict, problems) = target.problems(with: mutant.bytes)
            watchdog.watch(nil, since: inputStarted)
            let elapsed = inputStarted.duration(to: .now)
            report.inputsTried += 1
            report.bytesTried += mutant.bytes.count
            if verdict.accepted { report.accepted += 1 } else { report.rejected += 1 }
            for mutation in mutant.mutations { report.mutations[mutation.rawValue, default: 0] += 1 }
            if let code = verdict.messages.first.map(FuzzReport.shape) { report.reasons.insert(code) }
            report.slowest = max(report.slowest, elapsed)
            var all = problems
            if elapsed > timeLimit { all.append("took \(elapsed) (limit \(timeLimit))") }
            if !all.isEmpty {
                report.failures.append(FuzzFailure(
                    kind: target.kind, iteration: index, mutations: mutant.mutations.map(\.rawValue), problems: all, input: mutant.bytes))
            }
            if (index + 1) % 100 == 0 || index + 1 == total { progress(index + 1, total) }
        }
        report.elapsed = started.duration(to: .now)
        return report
    }
}

/// Watches the input being run from a thread of its own and reports one that runs too long.
final class FuzzWatchdog: Sendable {
    private let state = Mutex<(input: [UInt8]?, since: ContinuousClock.Instant, stopped: Bool)>((nil, .now, false))

    init(limit: Duration, onHang: (@Sendable ([UInt8], Duration) -> Void)?) {
        guard let onHang else { return }
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.1)
                let (input, since, stopped) = self.state.withLock { ($0.input, $0.since, $0.stopped) }
                if stopped { return }
                let elapsed = since.duration(to: .now)
                if let input, elapsed > limit {
                    onHang(input, elapsed)
                    return
                }
            }
        }
    }

    func watch(_ input: [UInt8]?, since: ContinuousClock.Instant) {
        state.withLock { $0 = (input, since, $0.stopped) }
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }
}

/// One input the library answered badly, and how.
public struct FuzzFailure: Sendable, JSONRepresentable {
    public let kind: FuzzKind
    public let iteration: Int
    public let mutations: [String]
    public let problems: [String]
    public let input: [UInt8]

    /// A failure of `input` (iteration -1: not from the campaign's own mutants).
    public init(kind: FuzzKind, iteration: Int, mutations: [String], problems: [String], input: [UInt8]) {
        self.kind = kind
        self.iteration = iteration
        self.mutations = mutations
        self.problems = problems
        self.input = input
    }

    /// The name the input is saved under: `<kind>-<first 12 hex digits of its SHA-256>.input`.
    public var fileName: String {
        "\(kind.rawValue)-\(String(SHA256.hash(input).hexString.prefix(12))).input"
    }

    /// Writes the input to `directory` (created) as `fileName`; returns the path.
    @discardableResult
    public func save(in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + fileName
        guard FileManager.default.createFile(atPath: path, contents: Data(input)) else {
            throw FuzzSaveError(path: path)
        }
        return path
    }

    public var json: JSONValue {
        .orderedObject([
            ("iteration", .number(iteration)), ("mutations", .array(mutations.map(JSONValue.string))),
            ("problems", .array(problems.map(JSONValue.string))), ("bytes", .number(input.count)), ("file", .string(fileName)),
        ])
    }
}

/// A failing input could not be written.
public struct FuzzSaveError: PayPanelError, Equatable {
    public let path: String
    public var code: String { "fuzz_input_not_saved" }
    public var message: String { "cannot write the failing input to \(path): check that the directory is writable, or pass --save-dir" }
}

/// What a fuzz campaign did.
public struct FuzzReport: Sendable, JSONRepresentable {
    public let kind: FuzzKind
    public let iterations: Int
    public let seed: UInt64
    public var inputsTried = 0
    public var bytesTried = 0
    public var accepted = 0
    public var rejected = 0
    /// How often each mutation was applied.
    public var mutations: [String: Int] = [:]
    /// Distinct first messages, digits and quoted values blurred: how many different ways of
    /// saying no were reached.
    public var reasons: Set<String> = []
    public var slowest: Duration = .zero
    public var elapsed: Duration = .zero
    public var failures: [FuzzFailure] = []

    /// An empty report for a campaign of `iterations` from `seed`.
    public init(kind: FuzzKind, iterations: Int, seed: UInt64) {
        self.kind = kind
        self.iterations = iterations
        self.seed = seed
    }

    /// A message with its quoted values and numbers blurred, to count kinds of reasons.
    static func shape(_ message: String) -> String {
        var output = ""
        var inQuote = false
        for character in message.prefix(200) {
            if character == "\"" {
                inQuote.toggle()
                output.append("\"")
            } else if !inQuote {
                output.append(character.isNumber ? "#" : character)
            }
        }
        return output
    }

    public var json: JSONValue {
        .orderedObject([
            ("check", .string("fuzz \(kind.rawValue)")), ("iterations", .number(iterations)), ("seed", .string(String(seed))),
            ("inputsTried", .number(inputsTried)), ("bytesTried", .number(bytesTried)), ("accepted", .number(accepted)),
            ("rejected", .number(rejected)), ("distinctReasons", .number(reasons.count)),
            ("mutations", .object(JSONObject(mutations.sorted { $0.key < $1.key }.map { (key: $0.key, value: .number($0.value)) }))),
            ("slowestMilliseconds", .number(slowest.wholeMilliseconds)),
            ("seconds", .number(JSONNumber(validatedLiteral: String(format: "%.1f", elapsed.timeInterval)))),
            ("failures", .array(failures.map(\.json))), ("result", .string(failures.isEmpty ? "pass" : "fail")),
        ])
    }
}
