import Foundation
import PayPanel

#if canImport(Glibc)
import Glibc
#endif

/// A server child — `paypanel serve`, `processor serve`, `webhooks listen`, a test's peer —
/// started on port 0 and known by the port it announces: the first `listening on
/// http://HOST:PORT` line of its standard output, or `{"port": N, …}` when it prints JSON. Its
/// output goes to two files, readable while it runs; it is stopped or killed by its pid, and
/// killed when dropped (a failed test never leaves it behind).
///
/// The one launcher of the test suites, the processor crash soak and `bench serve`.
public final class ListeningProcess: @unchecked Sendable {
    public let process: SpawnedProcess
    public let port: Int
    public let stdoutPath: String
    public let stderrPath: String

    public var pid: pid_t { process.pid }
    public var isRunning: Bool { process.isRunning }
    public var wasKilled: Bool { process.wasKilled }
    public var stdout: String { ChildProcess.readText(stdoutPath) }
    public var stderr: String { ChildProcess.readText(stderrPath) }

    /// Starts `executable arguments` with its output in `outputPrefix`.out and .err and waits
    /// (`timeout`, 60 s by default: a loaded 2-core machine) for the port. Throws
    /// `ListeningProcessError` with the end of its standard error when none came. `stderr`,
    /// when given, replaces the .err file (a pipe a test reads, or does not).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], outputPrefix: String,
        workingDirectory: String? = nil, timeout: Duration = .seconds(60), stderr: SpawnedProcess.Stream? = nil
    ) throws {
        stdoutPath = outputPrefix + ".out"
        stderrPath = outputPrefix + ".err"
        let process = try SpawnedProcess(
            executable, arguments, environment: environment, workingDirectory: workingDirectory,
            stdout: .file(stdoutPath), stderr: stderr ?? .file(stderrPath))
        self.process = process
        guard let port = process.waitForOutput(in: stdoutPath, timeout: timeout, Self.announcedPort) else {
            process.crash()
            throw ListeningProcessError(
                command: ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(2)).joined(separator: " "),
                seconds: Int(timeout.components.seconds), stderr: ChildProcess.readText(stderrPath), ended: process.termination)
        }
        self.port = port
    }

    /// The port of the first `listening on http://…:PORT` line, or of a line that is a JSON
    /// object with a `port`. Whole lines only: a line still being written may end mid-number.
    public static func announcedPort(in output: String) -> Int? {
        guard let end = output.lastIndex(of: "\n") else { return nil }
        for line in output[..<end].split(separator: "\n") {
            if line.hasPrefix("listening on http://"), let port = line.split(separator: ":").last.flatMap({ Int($0) }) { return port }
            if line.hasPrefix("{"), let port = (try? JSONParser().parse(String(line)))?["port"]?.int64Value { return Int(port) }
        }
        return nil
    }

    /// SIGKILL, as a crash would, and waits until it is gone.
    public func crash() { process.crash() }

    /// SIGTERM, then its exit status; SIGKILL and -1 when it has not ended within `timeout`.
    public func stop(within timeout: Duration = .seconds(30)) -> Int32 { process.stop(within: timeout) }

    /// Waits for it to end by itself (an armed fault point); false when it still runs.
    public func waitForExit(within timeout: Duration) -> Bool { process.waitForExit(within: timeout) }

}

/// A server child did not announce its port.
public struct ListeningProcessError: PayPanelError {
    public let command: String
    public let seconds: Int
    public let stderr: String
    public let ended: ChildProcess.Termination?

    public var code: String { "server_not_started" }
    public var message: String {
        let how = ended.map { "it ended (\($0))" } ?? "it did not within \(seconds) s and was killed"
        return "\(command) did not print its listening line: \(how); its standard error: \(stderr.suffix(2000))"
    }
}
