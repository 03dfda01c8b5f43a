import Foundation
#if canImport(Glibc)
import Glibc
#endif

// How the tests stop a server they started: by its pid, never left behind.
extension Process {
    /// SIGTERM, then the exit status; when the process is still running after `seconds`,
    /// SIGKILL and -1 (a failure status, so the test that expected a clean exit fails). Under a
    /// sanitizer the wait is ten times longer: a sanitized `processor serve` in the whole
    /// parallel suite on 2 cores once took more than 30 s to stop (clean-clone .ci/run).
    public func stopGracefully(within seconds: TimeInterval) async -> Int32 {
        kill(processIdentifier, SIGTERM)
        guard await waitForExit(within: Sanitizers.areActive ? seconds * 10 : seconds) else {
            kill(processIdentifier, SIGKILL)
            return -1
        }
        return terminationStatus
    }

    /// Polls until the process has exited; false if it still runs after `seconds`.
    @discardableResult
    public func waitForExit(within seconds: TimeInterval) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return !isRunning
    }
}
