import Foundation
import PayPanel
import PayPanelReliability

/// One `paypanel fuzz <kind>` run: seeds, regression inputs, the in-process campaign, the
/// sample through the binary, saving what failed, and the report.
@MainActor
struct FuzzRun {
    let kind: FuzzKind
    let options: FuzzOptions
    let console: Console
    /// The time the token seeds are signed at and verified at.
    static let tokenTime = Date(timeIntervalSince1970: 1_795_939_200)

    func run() throws -> ExitStatus {
        let progress = ProgressLine(console: console)
        progress.show("fuzz \(kind.rawValue): sealing seeds")
        let target = try FuzzTarget.make(kind, at: Self.tokenTime)
        let kindDirectory = options.saveDirectory + "/" + kind.rawValue
        var extraInputs = Self.files(in: kindDirectory).map(\.bytes)
        let regressionCount = extraInputs.count
        for directory in options.corpusDirectories {
            let files = Self.files(in: directory)
            if files.isEmpty { throw UsageError("'--corpus': \(directory) is not a directory with files in it") }
            for file in files {
                extraInputs.append(file.bytes)
                if let document = try? JSONParser().parse(file.bytes) { target.addSeeds([document]) }
            }
        }

        CrashCapture.arm(directory: options.saveDirectory, kindDirectory: kindDirectory, file: kindDirectory + "/\(kind.rawValue)-crash-\(getpid()).input")
        defer { CrashCapture.disarm() }
        let total = extraInputs.count + options.iterations
        let stride = max(1, total / max(1, options.binarySample))
        var sample: [[UInt8]] = []
        var seen = 0
        var campaign = FuzzCampaign(target: target, iterations: options.iterations, seed: options.seed, timeLimit: options.timeLimit)
        let hangDirectory = kindDirectory
        let hangKind = kind
        campaign.onHang = { input, elapsed in
            // The input never finishes: save it, say so, and end the process (exit 1).
            let failure = FuzzFailure(kind: hangKind, iteration: -1, mutations: ["hang"], problems: ["no answer after \(elapsed)"], input: input)
            let path = (try? failure.save(in: hangDirectory)) ?? "(could not be saved)"
            FileHandle.standardError.write(Data("\nError: fuzz \(hangKind.rawValue): an input got no answer after \(elapsed): a hang; it is saved as \(path)\n".utf8))
            exit(1)
        }
        var report = campaign.run(
            extraInputs: extraInputs,
            beforeInput: { input in
                CrashCapture.hold(input)
                if seen % stride == 0 && sample.count < options.binarySample { sample.append(input) }
                seen += 1
            },
            progress: { done, total in progress.show("fuzz \(kind.rawValue): \(done) of \(total) inputs") })
        progress.show("fuzz \(kind.rawValue): \(sample.count) inputs through the binary")
        let binaryProblems = try runThroughBinary(sample)
        progress.clear()

        var saved: [String] = []
        for failure in report.failures { saved.append(try failure.save(in: kindDirectory)) }
        for (index, problem) in binaryProblems.enumerated() {
            let failure = FuzzFailure(kind: kind, iteration: -1, mutations: ["binary-sample"], problems: [problem.problem], input: problem.input)
            report.failures.append(failure)
            if index < 20 { saved.append(try failure.save(in: kindDirectory)) }
        }

        if options.json {
            guard case .object(var object) = report.json else { return .failure }
            object["regressionInputs"] = .number(regressionCount)
            object["binarySample"] = .number(sample.count)
            object["saved"] = .array(saved.map(JSONValue.string))
            console.printJSON(.object(object))
        } else {
            let seconds = report.elapsed.timeInterval
            console.print("Fuzz \(kind.rawValue): \(report.inputsTried) inputs (\(regressionCount) saved regression inputs first), seed \(options.seed), \(String(format: "%.1f", seconds)) s")
            console.print("  answers         \(report.accepted) accepted, \(report.rejected) rejected, \(report.reasons.count) distinct reasons")
            console.print("  slowest input   \(report.slowest) (limit \(options.timeLimit))")
            console.print("  binary sample   \(sample.count) inputs through paypanel, \(binaryProblems.count) problem(s)")
            if report.failures.isEmpty {
                console.print("  result          pass: no crash, no hang, every rejection one line without card data")
            } else {
                console.print("  result          FAIL: \(report.failures.count) failing input(s), saved under \(kindDirectory)")
                printFindings(report.failures.map { "#\($0.iteration) \($0.mutations.joined(separator: "+")): \($0.problems.joined(separator: "; "))" }, console: console, limit: 20)
            }
        }
        return report.failures.isEmpty ? .success : .failure
    }

    /// Runs each input through `paypanel request validate` / `notify validate` / `token decrypt`:
    /// it must exit 0 or 1 (no crash, no usage error, no hang) and its standard error must be
    /// one-line messages without card data.
    private func runThroughBinary(_ inputs: [[UInt8]]) throws -> [(input: [UInt8], problem: String)] {
        guard !inputs.isEmpty else { return [] }
        let executable = try ReliabilityOptions.executablePath()
        let directory = NSTemporaryDirectory() + "/paypanel-fuzz-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/input.json"
        let detector = try FuzzTarget.make(kind == .token ? .token : kind, at: Self.tokenTime).detector
        var problems: [(input: [UInt8], problem: String)] = []
        for input in inputs {
            _ = FileManager.default.createFile(atPath: file, contents: Data(input))
            let arguments: [String] = switch kind {
            case .request: ["request", "validate", file]
            case .payload: ["notify", "validate", file]
            // The corpus is sealed with the test identity: without the test root every input would stop at the chain.
            case .token: ["token", "decrypt", file, "--test-root", "--now", Timestamp.format(Self.tokenTime)]
            }
            let result = try ChildProcess.run(
                executable, arguments, environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": directory], directory: directory,
                timeout: .seconds(60))
            let shown = arguments.prefix(2).joined(separator: " ")
            if result.exitCode != 0 && result.exitCode != 1 {
                problems.append((input, "paypanel \(shown) ended with \(result.termination)"))
            }
            for line in result.stderr.split(separator: "\n") {
                if line.utf8.count > FuzzTarget.maximumMessageBytes + 32 {
                    problems.append((input, "paypanel \(shown) wrote a \(line.utf8.count)-byte line to standard error"))
                }
                problems += detector.findings(in: String(line)).map { (input, "paypanel \(shown) wrote card data to standard error: \($0)") }
            }
        }
        return problems
    }

    /// The regular files of `directory` (not hidden), sorted by name; empty when it does not exist.
    static func files(in directory: String) -> [(name: String, bytes: [UInt8])] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().filter { !$0.hasPrefix(".") }.compactMap { name in
            var isDirectory: ObjCBool = false
            let path = directory + "/" + name
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { return nil }
            return (name, Array(data))
        }
    }
}
