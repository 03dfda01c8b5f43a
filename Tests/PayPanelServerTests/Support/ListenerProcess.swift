import Foundation
import PayPanelReliability
import Glibc
import TestSupport

/// One real `paypanel webhooks listen --port 0` in a directory: its port (from the
/// `listening on` line), its output, and a stop by its pid.
final class ListenerProcess: @unchecked Sendable {
    // Immutable after init.
    let process: Process
    let port: Int
    private let stdoutPath: String
    private let stderrPath: String

    init(directory: TemporaryDirectory, arguments: [String]) throws {
        let token = UUID().uuidString
        stdoutPath = directory.file("listen-\(token).out")
        stderrPath = directory.file("listen-\(token).err")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = ["webhooks", "listen", "--port", "0"] + arguments
        process.currentDirectoryURL = directory.url
        process.environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1", "HOME": directory.path]
            .merging(ChildProcess.sanitizerEnvironment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        while Date() < deadline, found == nil, process.isRunning {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }), let portText = line.split(separator: ":").last {
                found = Int(portText)
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw ServerStartError(description: "paypanel webhooks listen did not print its listening line")
        }
        port = found
    }

    static func start(directory: TemporaryDirectory, arguments: [String]) async throws -> ListenerProcess {
        try await onThread { try ListenerProcess(directory: directory, arguments: arguments) }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Polls its output until `line` appears in it (60 s at most: a loaded machine).
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
        await process.stopGracefully(within: 20)
    }
}
