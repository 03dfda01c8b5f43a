import Foundation
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// Runs `paypanel checkout` in line mode on a temporary directory's databases, at a fixed
/// virtual time, and reads back what it stored with the other commands.
struct LineCheckoutHarness {
    static let now = "2026-11-29T08:00:00Z"

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("paypanel-checkout")
    }

    /// Runs the checkout with `script` (one command per line) on standard input.
    func run(_ script: [String], json: Bool = true, options: [String] = [], endWithNewline: Bool = true) throws -> CLIResult {
        let input = script.joined(separator: "\n") + (endWithNewline ? "\n" : "")
        return try CLIRunner.run(["checkout", "--now", Self.now] + (json ? ["--json"] : []) + options, stdin: input, in: directory)
    }

    /// Runs any other paypanel command in the same directory.
    func paypanel(_ arguments: [String]) throws -> CLIResult {
        try CLIRunner.run(arguments, in: directory)
    }

    /// Every stdout line of a `--json` run, parsed.
    static func events(_ result: CLIResult) throws -> [JSONValue] {
        try result.stdoutLines.map { try JSONParser().parse($0) }
    }

    /// The names of the events, in order.
    static func eventNames(_ result: CLIResult) throws -> [String] {
        try events(result).compactMap { $0["event"]?.stringValue }
    }

    /// The intents created by the run, in order.
    static func createdIntentIDs(_ result: CLIResult) throws -> [String] {
        try events(result).filter { $0["event"]?.stringValue == "intent_created" }.compactMap { $0["intentId"]?.stringValue }
    }

    /// `payments show ID --json`.
    func intent(_ id: String) throws -> JSONValue {
        let result = try paypanel(["payments", "show", id, "--json", "--now", Self.now])
        #expect(result.status == 0, "\(result)")
        return try JSONParser().parse(result.stdout)
    }

    /// Every intent in the payments database (`payments list --json`).
    func intents() throws -> [JSONValue] {
        let result = try paypanel(["payments", "list", "--json", "--now", Self.now])
        #expect(result.status == 0, "\(result)")
        return try JSONParser().parse(result.stdout).arrayValue ?? []
    }

    /// The processor's ledger entries for one attempt (`processor ledger --reference … --json`).
    func ledger(reference: String) throws -> [JSONValue] {
        let result = try paypanel(["processor", "ledger", "--reference", reference, "--json", "--now", Self.now])
        #expect(result.status == 0, "\(result)")
        return try JSONParser().parse(result.stdout).arrayValue ?? []
    }

    /// `operation status` of each ledger entry of `reference`, e.g. `["authorize approved", "capture approved"]`.
    func ledgerSummary(reference: String) throws -> [String] {
        try ledger(reference: reference).map { "\($0["operation"]?.stringValue ?? "?") \($0["status"]?.stringValue ?? "?")" }
    }
}

extension JSONValue {
    /// `attempts[index]` of an intent's JSON.
    func attempt(_ index: Int) -> JSONValue? {
        guard let attempts = self["attempts"]?.arrayValue, attempts.indices.contains(index) else { return nil }
        return attempts[index]
    }
}

/// A checkout process fed one line at a time, for tests that act between commands.
final class InteractiveCheckout: @unchecked Sendable {
    // Used from the test's thread only.
    private let process: SpawnedProcess
    private let input = Pipe()
    private let outputPath: String

    init(arguments: [String], in directory: TemporaryDirectory) throws {
        outputPath = directory.file(".interactive-\(UUID().uuidString)")
        process = try SpawnedProcess(
            CLIRunner.binary.path(percentEncoded: false), arguments,
            environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TERM": "dumb", "HOME": directory.path], workingDirectory: directory.path,
            stdin: .descriptor(input.fileHandleForReading.fileDescriptor), stdout: .file(outputPath))
        // Ours is only the writing end: the checkout sees the end of its input when we close it.
        try input.fileHandleForReading.close()
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func waitForOutput(containing text: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !output.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw CheckoutTestTimeout(description: "waited \(Int(timeout)) s for \(text) in:\n\(output)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func waitForExit(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard let status = process.status else { throw CheckoutTestTimeout(description: "the checkout did not exit within \(Int(timeout)) s") }
        return status
    }

    /// Sends SIGINT, as Ctrl-C on a terminal would.
    func interrupt() {
        process.signal(SIGINT)
    }

    /// Ends the process if the test did not (a failed expectation), by its own pid.
    func stop() {
        try? input.fileHandleForWriting.close()
        _ = process.stop(within: .seconds(10))
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}

/// A checkout test waited too long.
struct CheckoutTestTimeout: Error, CustomStringConvertible {
    let description: String
}
