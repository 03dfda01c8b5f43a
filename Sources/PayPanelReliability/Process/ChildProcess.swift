import Foundation
import PayPanel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program as a child process the way a server runs one request: its own process, its
/// own environment, standard output and error captured to files (never a pipe that could fill
/// up), bounded in time — and, for the crash soak, killed with SIGKILL after a chosen delay.
public enum ChildProcess {
    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)
        /// Still running at the timeout: killed with SIGKILL.
        case timedOut

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            case .timedOut: "timed out"
            }
        }
    }

    /// What one run did.
    public struct Result: Sendable {
        public let arguments: [String]
        public let termination: Termination
        public let stdout: String
        public let stderr: String
        /// Wall time from spawn to exit.
        public let duration: Duration
        /// Peak resident memory of the child, in KiB: the last `VmHWM` read from
        /// /proc/<pid>/status while it ran (0 when not sampled). Not `ru_maxrss`: posix_spawn
        /// starts the child in the parent's address space, so the kernel folds the parent's peak
        /// into the child's `ru_maxrss`, and a large parent hides what the child used.
        public let peakMemoryKiB: Int

        /// True when the child died of SIGKILL (ours, or a fault point's).
        public var wasKilled: Bool { termination == .signaled(SIGKILL) }
        public var exitCode: Int32? {
            if case .exited(let code) = termination { return code }
            return nil
        }
        /// As Foundation's `Process` reports it: the exit code, or the killing signal's number
        /// (-1 when it timed out).
        public var status: Int32 {
            switch termination {
            case .exited(let code): code
            case .signaled(let signal): signal
            case .timedOut: -1
            }
        }
    }

    /// The sanitizer and backtrace settings of this process (`ASAN_OPTIONS`, `LSAN_OPTIONS`,
    /// `TSAN_OPTIONS`, `UBSAN_OPTIONS`, `SWIFT_BACKTRACE`), which every child gets too: a child
    /// of a sanitized build is sanitized as well, and without them it would run LeakSanitizer
    /// (or hang in a crash report) where its parent was told not to. Empty in an ordinary run.
    public static var sanitizerEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter {
            ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "SWIFT_BACKTRACE"].contains($0.key)
        }
    }

    /// Runs `executable` with `arguments` and exactly `environment` (plus this process's
    /// `sanitizerEnvironment`, where `environment` does not set them); its output is captured in
    /// temporary files in `directory`. The child keeps the caller's working directory, so pass
    /// every file it should use explicitly (`PAYPANEL_DB`, `PAYPANEL_PROCESSOR_DB`, …).
    /// `killAfter`: send SIGKILL after this long (if it is still running). `timeout`: the
    /// longest it may run before it is killed and reported `timedOut`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String,
        killAfter: Duration? = nil, timeout: Duration = .seconds(120), sampleMemory: Bool = false
    ) throws -> Result {
        try start(executable, arguments, environment: environment, directory: directory)
            .wait(killAfter: killAfter, timeout: timeout, sampleMemory: sampleMemory)
    }

    /// Starts the child and returns at once: start several, then wait for each, to have them
    /// run at the same time.
    /// `workingDirectory`: where the child starts (default: the caller's). `input`: a file read
    /// as its standard input (default: /dev/null).
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String,
        workingDirectory: String? = nil, input: String? = nil
    ) throws -> Running {
        let token = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let outPath = directory + "/.child-out-\(token)"
        let errPath = directory + "/.child-err-\(token)"
        do {
            let process = try SpawnedProcess(
                executable, arguments, environment: environment, workingDirectory: workingDirectory,
                stdin: input.map { .input($0) } ?? .null, stdout: .file(outPath), stderr: .file(errPath))
            return Running(process: process, outPath: outPath, errPath: errPath)
        } catch {
            unlink(outPath)
            unlink(errPath)
            throw error
        }
    }

    /// A started child, not yet waited for. Wait exactly once.
    public final class Running {
        public let process: SpawnedProcess
        public var pid: pid_t { process.pid }
        let outPath: String
        let errPath: String

        init(process: SpawnedProcess, outPath: String, errPath: String) {
            self.process = process
            self.outPath = outPath
            self.errPath = errPath
        }

        /// Waits for the child to end (killing it after `killAfter`, or at `timeout`) and
        /// collects its output.
        /// `sampleMemory`: read the child's peak memory every millisecond (for benchmarks).
        /// `poll`: how often to look (fine for timing a start-up; coarser spares a busy machine).
        public func wait(
            killAfter: Duration? = nil, timeout: Duration = .seconds(120), sampleMemory: Bool = false, poll: Duration = .microseconds(200)
        ) throws -> Result {
            defer {
                unlink(outPath)
                unlink(errPath)
            }
            var killed = false
            var timedOut = false
            var peak = 0
            var lastSample = process.started
            var ended: Termination?
            while true {
                if sampleMemory, lastSample.duration(to: .now) >= .milliseconds(1) {
                    peak = max(peak, ChildProcess.highWaterMark(pid))
                    lastSample = .now
                }
                ended = process.termination
                if ended != nil { break }
                let elapsed = process.started.duration(to: .now)
                if let killAfter, !killed, elapsed >= killAfter {
                    process.signal(SIGKILL)
                    killed = true
                }
                if !timedOut, elapsed >= timeout {
                    process.signal(SIGKILL)
                    timedOut = true
                }
                SpawnedProcess.sleep(poll)  // 200 µs by default: fine enough to time a 10 ms start-up
            }
            let duration = process.started.duration(to: .now)
            return Result(
                arguments: process.arguments, termination: timedOut ? .timedOut : ended ?? .timedOut,
                stdout: ChildProcess.readText(outPath), stderr: ChildProcess.readText(errPath), duration: duration, peakMemoryKiB: peak)
        }
    }

    /// `VmHWM` of process `pid` in KiB, 0 when unreadable.
    static func highWaterMark(_ pid: pid_t) -> Int {
        // /proc files report size 0: read them with read(2), not by their size.
        let descriptor = open("/proc/\(pid)/status", O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return 0 }
        for line in String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }

    /// The file's text, "" when it cannot be read.
    public static func readText(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The child process could not be started (or waited for).
public struct ChildProcessError: PayPanelError, Equatable {
    public let executable: String
    public let errorNumber: Int32

    public var code: String { "child_process_failed" }
    public var message: String {
        "could not run \(executable): \(String(cString: strerror(errorNumber))) (errno \(errorNumber)); check that it exists and is executable"
    }
}
