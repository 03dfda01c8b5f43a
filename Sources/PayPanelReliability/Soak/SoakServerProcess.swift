import Foundation
import Glibc

/// One long-running `paypanel serve` or `paypanel processor serve` of the processor crash soak:
/// started on a port (0 the first time, then the port it had, so a restart is "the same
/// address"), its listening line read from its output file, killed or stopped by its pid.
///
/// `@unchecked Sendable`: the soak drives it from one thread; the only other thread that
/// touches it is a kill timer, which reads the constant `pid` and sends a signal.
final class SoakServerProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    let name: String
    private let stdoutPath: String
    private let stderrPath: String

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Starts `executable arguments` and waits (up to 60 s: a loaded 2-core machine) for its
    /// `listening on http://…:PORT` line. Output goes to files `name`-N.out/.err in `directory`.
    init(name: String, executable: String, arguments: [String], environment: [String: String], directory: String, generation: Int) throws {
        self.name = name
        stdoutPath = directory + "/\(name)-\(generation).out"
        stderrPath = directory + "/\(name)-\(generation).err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil, attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil, attributes: [.posixPermissions: 0o600])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true)
        process.environment = environment.merging(ChildProcess.sanitizerEnvironment) { given, _ in given }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        self.process = process

        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        while found == nil, process.isRunning, Date() < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                let portText = line.split(separator: ":").last, let number = Int(portText)
            {
                found = number
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            throw ProcessorSoakError(
                code: "soak_server_not_started",
                message: "paypanel \(arguments.prefix(2).joined(separator: " ")) did not print its listening line within 60 s; its standard error: \(stderr.suffix(1500))")
        }
        port = found
    }

    /// SIGKILL, as a crash would, and waits until it is gone.
    func crash() {
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits up to `seconds` for the process to end by itself (an armed fault point).
    func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    /// True when the process ended by SIGKILL (a fault point or one of our kills).
    var wasKilled: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL }

    /// SIGTERM, then its exit status; SIGKILL and -1 after 30 s.
    func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(pid, SIGTERM)
        guard waitForExit(seconds: 30) else {
            crash()
            return -1
        }
        return process.terminationStatus
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
    }
}

/// The processor crash soak could not run (a server did not start, a request was refused).
public struct ProcessorSoakError: Error, CustomStringConvertible {
    public let code: String
    public let message: String
    public var description: String { message }
}
