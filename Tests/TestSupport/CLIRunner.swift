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

    /// Started with `posix_spawn` and waited for with `wait4` on its own pid (`ChildProcess`),
    /// not Foundation's `Process`: under a loaded parallel run, `Process` sometimes missed a
    /// child's exit (the child a zombie, `isRunning` true for ever) and a finished command read
    /// as one that "did not finish within 60 s".
    public static func run(
        _ arguments: [String], stdin: String? = nil, in directory: TemporaryDirectory,
        environment: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> CLIResult {
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1",
                   "TERM": "dumb", "HOME": directory.path]
        env.merge(environment) { $1 }
        // Files, not pipes: a chatty process can never block on a full pipe, nor a quiet one on
        // input nobody writes.
        var inputPath: String?
        if let stdin {
            let path = directory.file(".stdin-\(UUID().uuidString)")
            try Data(stdin.utf8).write(to: URL(fileURLWithPath: path))
            inputPath = path
        }
        defer { if let inputPath { try? FileManager.default.removeItem(atPath: inputPath) } }
        let result = try ChildProcess.start(
            binary.path(percentEncoded: false), arguments, environment: env, directory: directory.path,
            workingDirectory: directory.path, input: inputPath
        ).wait(timeout: .milliseconds(Int64(timeout * 1000)), poll: .milliseconds(2))
        switch result.termination {
        case .exited(let status):
            return CLIResult(status: status, stdout: result.stdout, stderr: result.stderr)
        case .signaled(let signal):
            return CLIResult(status: signal, stdout: result.stdout, stderr: result.stderr, signal: signal)
        case .timedOut:
            throw CLITimeout(arguments: arguments, seconds: timeout)
        }
    }
}

public struct CLITimeout: Error, CustomStringConvertible {
    public let arguments: [String]
    public let seconds: TimeInterval
    public var description: String { "paypanel \(arguments.joined(separator: " ")) did not finish within \(seconds) s" }
}
