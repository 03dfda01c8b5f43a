import Foundation
import CPayPanelHTTP
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One child started with `posix_spawn` and watched by its own pid with `wait4`: every
/// program the tests, soaks and benchmarks start goes through here, never Foundation's
/// `Process`. `Process` sometimes missed a child's exit under a loaded parallel run (the child
/// a zombie, `isRunning` true for ever), and its `run()` lists /proc/self/fd with a read past
/// the end of a buffer that AddressSanitizer aborts the whole test run on (seen in the
/// clean-clone .ci/run's ASan pass, from `ProcessorWebhooksEndToEndTests`).
///
/// The child gets exactly the environment given (plus this process's sanitizer settings), its
/// standard streams from `Stream`s, no other descriptor of ours (everything above 2 is closed
/// in the child, so it can never hold a test's socket or terminal open), no blocked signal and
/// every signal's default action.
///
/// `@unchecked Sendable`: the termination is behind a mutex, and a signal is only sent while
/// holding it before the child is reaped, so a signal never reaches a recycled pid.
public final class SpawnedProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// /dev/null.
        case null
        /// A file, created (mode 0600) or truncated.
        case file(String)
        /// A file opened for reading (standard input).
        case input(String)
        /// One of our descriptors (a pipe's end, a pseudo-terminal), duplicated into the child.
        case descriptor(Int32)
    }

    public let pid: pid_t
    public let executable: String
    public let arguments: [String]
    public let started: ContinuousClock.Instant
    private let ended = Mutex<ChildProcess.Termination?>(nil)

    /// Starts `executable` with `arguments` (not including argv[0]) and exactly `environment`
    /// (plus `ChildProcess.sanitizerEnvironment` where it does not set them), in
    /// `workingDirectory` (default: ours).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], workingDirectory: String? = nil,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Streams first (their paths are absolute or relative to our directory), then the move.
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .input(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_RDONLY, 0)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let workingDirectory { posix_spawn_file_actions_addchdir_np(&actions, workingDirectory) }

        // The child starts with no signal blocked and every signal's default action: posix_spawn
        // would otherwise pass on the calling thread's mask and whatever this process ignores
        // (a test runner's worker thread blocks signals; a child that cannot get SIGTERM would
        // never stop).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var cArguments = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = environment.merging(ChildProcess.sanitizerEnvironment) { given, _ in given }
        var cEnvironment = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        started = .now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw ChildProcessError(executable: executable, errorNumber: spawned) }
        self.pid = pid
        self.executable = executable
        self.arguments = arguments
    }

    /// How it ended, nil while it runs (reaps it when it has ended).
    public var termination: ChildProcess.Termination? {
        whileUnreaped { _ in }
    }

    /// Reaps the child if it has ended; runs `body` (under the lock, so no reap can slip
    /// between) only while it still runs. Returns how it ended, nil while it runs.
    @discardableResult
    private func whileUnreaped(_ body: (inout ChildProcess.Termination?) -> Void) -> ChildProcess.Termination? {
        ended.withLock { ended in
            if ended == nil { ended = reap(blocking: false) }
            if ended == nil { body(&ended) }
            return ended
        }
    }

    public var isRunning: Bool { termination == nil }

    /// The status as Foundation's `Process` reports it: the exit code, or the number of the
    /// signal that killed it; nil while it runs.
    public var status: Int32? {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): signal
        case .timedOut: SIGKILL
        case nil: nil
        }
    }

    /// True when it died of SIGKILL (ours, or an armed fault point's).
    public var wasKilled: Bool { termination == .signaled(SIGKILL) }

    /// Sends `signal` unless it has already been reaped. Returns false when it had ended.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        var sent = false
        whileUnreaped { _ in
            kill(pid, signal)
            sent = true
        }
        return sent
    }

    /// Polls (every `poll`) until it has ended; false when it still runs after `timeout`.
    @discardableResult
    public func waitForExit(within timeout: Duration, poll: Duration = .milliseconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < deadline else { return false }
            SpawnedProcess.sleep(poll)
        }
        return true
    }

    /// SIGKILL, as a crash would, and waits until it is gone.
    public func crash() {
        whileUnreaped { ended in
            kill(pid, SIGKILL)
            ended = reap(blocking: true)
        }
    }

    /// SIGTERM, then its `status`; SIGKILL and -1 (a failure, so whoever expected a clean exit
    /// sees one) when it has not ended within `timeout`.
    public func stop(within timeout: Duration) -> Int32 {
        signal(SIGTERM)
        guard waitForExit(within: timeout) else {
            crash()
            return -1
        }
        return status ?? -1
    }

    /// Polls `path` until `parse` finds what it looks for in the text (the port of a
    /// `listening on` line), the child ends, or `timeout` passes; nil in the last two cases.
    public func waitForOutput<Found>(in path: String, timeout: Duration, _ parse: (String) -> Found?) -> Found? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = parse(ChildProcess.readText(path)) { return found }
            guard isRunning, ContinuousClock.now < deadline else { return nil }
            SpawnedProcess.sleep(.milliseconds(20))
        }
    }

    /// A child nobody stopped (a failed expectation) is killed and reaped, never left behind.
    deinit { crash() }

    private func reap(blocking: Bool) -> ChildProcess.Termination? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if reaped == pid { break }
            if reaped == 0 { return nil }
            if errno == EINTR { continue }
            // ECHILD: not ours to wait for any more (nobody else reaps it); report it gone.
            return .exited(-1)
        }
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    static func sleep(_ duration: Duration) {
        usleep(UInt32(clamping: duration.wholeMicroseconds))
    }
}
