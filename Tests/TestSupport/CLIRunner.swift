import Foundation
import PayPanel
import PayPanelReliability

/// What one run of the `paypanel` binary did.
public struct CLIResult: Sendable, CustomStringConvertible {
    /// The exit status; when the process was killed, the signal's number (as `Process` reports it).
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// The signal that killed the process (9 for SIGKILL), nil when it exited by itself.
    public var signal: Int32? = nil

    /// stdout split into lines (without the final empty one).
    public var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLastEmpty() }
    public var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLastEmpty() }

    public var description: String {
        "\(signal.map { "killed by signal \($0)" } ?? "exit \(status)")\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

extension Array where Element == Substring {
    fileprivate func dropLastEmpty() -> [String] {
        var lines = map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Runs the built `paypanel` binary the way a user would: its own working directory, a clean
/// environment (no PAYPANEL_* from the developer's shell), optional standard input, and a
/// timeout so a hung process fails the test instead of the whole run.
public enum CLIRunner {
    /// The binary built next to the test bundle (`.build/<config>/paypanel`).
    public static let binary: URL = {
        let candidates = [
            Bundle.main.bundleURL.appending(path: "paypanel"),
            Bundle.main.bundleURL.deletingLastPathComponent().appending(path: "paypanel"),
            Bundle.main.executableURL?.deletingLastPathComponent().appending(path: "paypanel"),
        ].compactMap { $0 }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path(percentEncoded: false)) }
            ?? RepositoryPaths.root.appending(path: ".build/debug/paypanel")
    }()

    public static func run(
        _ arguments: [String], stdin: String? = nil, in directory: TemporaryDirectory,
        environment: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> CLIResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1",
                   "TERM": "dumb", "HOME": directory.path]
        env.merge(environment) { $1 }
        env.merge(ChildProcess.sanitizerEnvironment) { given, _ in given }
        process.environment = env

        // Files, not pipes: a chatty process can never block on a full pipe.
        let token = UUID().uuidString
        let outPath = directory.file(".stdout-\(token)")
        let errPath = directory.file(".stderr-\(token)")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer {
            try? outHandle.close()
            try? errHandle.close()
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try? input.fileHandleForWriting.close()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw CLITimeout(arguments: arguments, seconds: timeout)
        }
        process.waitUntilExit()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return CLIResult(status: process.terminationStatus, stdout: stdout, stderr: stderr, signal: signal)
    }
}

public struct CLITimeout: Error, CustomStringConvertible {
    public let arguments: [String]
    public let seconds: TimeInterval
    public var description: String { "paypanel \(arguments.joined(separator: " ")) did not finish within \(seconds) s" }
}
