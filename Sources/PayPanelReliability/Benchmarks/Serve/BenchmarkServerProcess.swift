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
    let server: ListeningProcess
    /// The secret key the merchant calls use.
    let apiKey: String

    var port: Int { server.port }
    var pid: Int32 { server.pid }
    var stderrPath: String { server.stderrPath }

    /// Starts `executable serve …` and waits (up to 60 s: a loaded machine) for its listening line.
    init(executable: String, directory: String, database: String, apiKey: String) throws {
        self.apiKey = apiKey
        var environment = ProcessInfo.processInfo.environment
        // Real time and no armed fault: this measures the server as it runs in production.
        environment["PAYPANEL_NOW"] = nil
        environment["PAYPANEL_FAULT"] = nil
        server = try ListeningProcess(
            executable,
            ["serve", "--port", "0", "--json", "--test-root", "--db", database, "--processor-db", directory + "/processor.sqlite"],
            environment: environment, outputPrefix: directory + "/serve", workingDirectory: directory)
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

    /// The CPU time the child has used so far, user and system, in seconds (`utime` and
    /// `stime` of /proc/<pid>/stat, in clock ticks); 0 when it cannot be read.
    func cpuSeconds() -> Double { ProcCPUTime.seconds(statFile: "/proc/\(pid)/stat") ?? 0 }

    /// Every thread of the child, by thread id: its name and the CPU seconds it has used so far.
    func threadCPUSeconds() -> [String: (name: String, seconds: Double)] { ProcCPUTime.threads(inProcess: String(pid)) }

    /// The context switches the child's threads have made so far, voluntary and not (summed
    /// over /proc/<pid>/task/*/status; a thread that has ended no longer counts). Each hand-off
    /// of a request from one thread to another costs one or two: a figure that does not move
    /// with the machine's load the way CPU time does. 0 when it cannot be read.
    func contextSwitches() -> Int {
        let tasks = "/proc/\(pid)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return 0 }
        var total = 0
        for thread in threads {
            guard let status = try? String(contentsOfFile: "\(tasks)/\(thread)/status", encoding: .utf8) else { continue }
            // `voluntary_ctxt_switches:` and `nonvoluntary_ctxt_switches:`, a tab, the count.
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return total
    }

    /// SIGTERM, then the exit status; SIGKILL and -1 when it has not exited within 30 s.
    func stop() -> Int32 { server.stop(within: .seconds(30)) }
}

/// `bench serve` could not measure: the server did not start, or the machine refuses the
/// descriptors the idle connections need.
public struct ServeBenchmarkError: PayPanelError {
    public let code: String
    public let message: String
}
