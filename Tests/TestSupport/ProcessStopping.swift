import Foundation
import PayPanelReliability
#if canImport(Glibc)
import Glibc
#endif

// How the tests stop a server they started: by its pid, never left behind, without blocking a
// thread of the cooperative pool that the in-process servers of other suites run on.
extension SpawnedProcess {
    /// SIGTERM, then the exit status; when the process is still running after `seconds`,
    /// SIGKILL and -1 (a failure status, so the test that expected a clean exit fails). Under a
    /// sanitizer the wait is ten times longer: a sanitized `processor serve` in the whole
    /// parallel suite on 2 cores once took more than 30 s to stop (clean-clone .ci/run).
    public func stopGracefully(within seconds: TimeInterval) async -> Int32 {
        signal(SIGTERM)
        guard await waitForExit(within: Sanitizers.areActive ? seconds * 10 : seconds) else {
            crash()
            return -1
        }
        return status ?? -1
    }

    /// Polls until the process has exited; false if it still runs after `seconds`.
    @discardableResult
    public func waitForExit(within seconds: TimeInterval) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return !isRunning
    }
}

extension ListeningProcess {
    /// `SpawnedProcess.stopGracefully(within:)` of its process.
    public func stopGracefully(within seconds: TimeInterval) async -> Int32 {
        await process.stopGracefully(within: seconds)
    }

    /// A test's server: `paypanel ARGUMENTS` on port 0 with its output in `directory`
    /// (`name`-UUID.out/.err), started there with a clean environment (PATH, NO_COLOR, HOME the
    /// directory, then `environment`), on a thread of its own: waiting for the listening line
    /// must not block a cooperative thread that in-process servers need.
    /// `launcher`: a program and its arguments that exec the binary (`unshare -m …`).
    public static func paypanel(
        _ arguments: [String], name: String, directory: TemporaryDirectory, environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> ListeningProcess {
        try await onThread { try paypanelNow(arguments, name: name, directory: directory, environment: environment, launcher: launcher) }
    }

    /// `paypanel(…)` on the calling thread.
    public static func paypanelNow(
        _ arguments: [String], name: String, directory: TemporaryDirectory, environment: [String: String] = [:], launcher: [String] = [],
        stderr: SpawnedProcess.Stream? = nil
    ) throws -> ListeningProcess {
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1", "HOME": directory.path]
        env.merge(environment) { $1 }
        let binary = CLIRunner.binary.path(percentEncoded: false)
        let (program, all) = launcher.first.map { ($0, Array(launcher.dropFirst()) + [binary] + arguments) } ?? (binary, arguments)
        return try ListeningProcess(
            program, all, environment: env, outputPrefix: directory.file("\(name)-\(UUID().uuidString)"), workingDirectory: directory.path,
            stderr: stderr)
    }
}
