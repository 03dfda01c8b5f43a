import Foundation
import Glibc
import PayPanel

/// A `paypanel serve` child process `bench serve` measures: started on port 0 in a directory
/// of its own, on the payments database `--db` names (shared by every child of a run), with
/// the zero-latency mock processor (its ledger a file in that directory: the processor is a
/// separate service, and each client's payments stay on one server) and the test root, an API
/// key created beforehand in the database (so it prints none), its access log in a file
/// there. Stopped by its pid.
///
/// `@unchecked Sendable`: every stored property is a constant, and the benchmark only reads
/// the process's pid and state from the thread that holds the idle connections.
final class BenchmarkServerProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    /// The secret key the merchant calls use.
    let apiKey: String
    let stderrPath: String

    var pid: Int32 { process.processIdentifier }

    /// Starts `executable serve …` and waits (up to 60 s: a loaded machine) for its listening line.
    /// Start it before opening many descriptors: Foundation's `Process.run()` lists them.
    init(executable: String, directory: String, database: String, apiKey: String) throws {
        self.apiKey = apiKey

        let stdoutPath = directory + "/serve.out"
        stderrPath = directory + "/serve.err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "serve", "--port", "0", "--json", "--test-root", "--db", database, "--processor-db", directory + "/processor.sqlite",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true)
        var environment = ProcessInfo.processInfo.environment
        // Real time and no armed fault: this measures the server as it runs in production.
        environment["PAYPANEL_NOW"] = nil
        environment["PAYPANEL_FAULT"] = nil
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        self.process = process

        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        while found == nil, process.isRunning, Date() < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first, let port = (try? JSONParser().parse(String(line)))?["port"]?.int64Value {
                found = Int(port)
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            throw ServeBenchmarkError(
                code: "bench_server_not_started",
                message: "paypanel serve did not print its listening line within 60 s; its standard error: \(stderr.suffix(2000))")
        }
        port = found
    }

    /// The child's resident memory (`VmRSS`) and its peak (`VmHWM`) from /proc, in bytes.
    func memory() -> (resident: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
                let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { return 0 }
            return kilobytes * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// SIGTERM, then the exit status; SIGKILL and -1 when it has not exited within 30 s.
    func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
    }
}

/// `bench serve` could not measure: the server did not start, or the machine refuses the
/// descriptors the idle connections need.
public struct ServeBenchmarkError: PayPanelError {
    public let code: String
    public let message: String
}
