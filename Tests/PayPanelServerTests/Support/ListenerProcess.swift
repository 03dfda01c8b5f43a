import Foundation
import PayPanelReliability
import Glibc
import TestSupport

/// One real `paypanel webhooks listen --port 0` in a directory: its port (from the
/// `listening on` line), its output, and a stop by its pid.
final class ListenerProcess: @unchecked Sendable {
    let server: ListeningProcess
    var port: Int { server.port }

    static func start(directory: TemporaryDirectory, arguments: [String]) async throws -> ListenerProcess {
        ListenerProcess(server: try await ListeningProcess.paypanel(["webhooks", "listen", "--port", "0"] + arguments, name: "listen", directory: directory))
    }

    private init(server: ListeningProcess) { self.server = server }

    var stdout: String { server.stdout }
    var stderr: String { server.stderr }

    /// Polls its output until `text` appears in it (60 s at most: a loaded machine).
    func waitFor(_ text: String, inErrors: Bool = false) async throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (inErrors ? stderr : stdout).contains(text) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerStartError(description: "the listener never printed \(text); stdout:\n\(stdout)\nstderr:\n\(stderr)")
    }

    /// SIGTERM, then the exit status (SIGKILL after 20 s).
    @discardableResult
    func terminate() async -> Int32 {
        await server.stopGracefully(within: 20)
    }
}
