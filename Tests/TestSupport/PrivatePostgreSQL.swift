import Foundation
import Glibc
import PayPanelReliability

/// A PostgreSQL server of one test's own, for tests that stop and start the database under a
/// running `serve` (the shared server `.ci/run` exports in `$PAYPANEL_TEST_POSTGRES_URL` is used
/// by other tests at the same time, so it cannot be stopped). A cluster in a temporary
/// directory, reached by a unix socket only (no TCP port to collide on), stopped by its pid when
/// the value goes away.
///
/// The binaries are `$PAYPANEL_TEST_POSTGRES_BIN` or the newest `/usr/lib/postgresql/*/bin`
/// (Debian's package). As root (CI), initdb and the server run as the `postgres` user, which
/// PostgreSQL requires.
public final class PrivatePostgreSQL: @unchecked Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The URL for `paypanel serve --db`.
    public var url: String { "postgresql:///postgres?host=\(socketDirectory)&user=postgres" }

    private let directory: TemporaryDirectory
    private let binaries: String
    private var dataDirectory: String { directory.file("data") }
    private var socketDirectory: String { directory.file("run") }
    private let asRoot = geteuid() == 0

    /// Where initdb and pg_ctl are, or nil when PostgreSQL is not installed.
    public static func binaryDirectory() -> String? {
        if let configured = ProcessInfo.processInfo.environment["PAYPANEL_TEST_POSTGRES_BIN"], !configured.isEmpty {
            return configured
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).sorted().reversed().lazy
            .map { "/usr/lib/postgresql/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// Why a test that needs a PostgreSQL of its own is skipped here, or nil when it runs: the
    /// binaries are missing and `$PAYPANEL_TEST_POSTGRES_REQUIRED` is not 1 (in CI it is, so
    /// there a missing PostgreSQL fails the test instead).
    public static func skipReason() -> String? {
        guard binaryDirectory() == nil, ProcessInfo.processInfo.environment["PAYPANEL_TEST_POSTGRES_REQUIRED"] != "1" else { return nil }
        return "PostgreSQL is not installed"
    }

    /// Creates the cluster (initdb) and starts it.
    public init() throws {
        guard let binaries = Self.binaryDirectory() else {
            throw Unavailable(description: "PostgreSQL is not installed: set PAYPANEL_TEST_POSTGRES_BIN to the directory holding initdb and pg_ctl")
        }
        self.binaries = binaries
        directory = try TemporaryDirectory("paypanel-pg")
        for path in [dataDirectory, socketDirectory] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            if asRoot {
                guard let user = getpwnam("postgres") else {
                    throw Unavailable(description: "running as root, and there is no postgres user to run PostgreSQL as")
                }
                chown(path, user.pointee.pw_uid, user.pointee.pw_gid)
            }
        }
        try run("initdb", ["-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
        try start()
    }

    deinit {
        if let pid = postmasterPID() {
            // Immediate shutdown: nothing here needs to survive the test.
            kill(pid, SIGQUIT)
            for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
        }
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        let options = "-k \(socketDirectory) -c listen_addresses= -c max_connections=50 -c fsync=off"
        try run("pg_ctl", ["-D", dataDirectory, "-l", socketDirectory + "/server.log", "-w", "-t", "60", "-o", options, "start"])
    }

    /// Stops the server the way an operator's restart does (`pg_ctl stop -m fast`: open
    /// transactions are rolled back, clients see their connections end with SQLSTATE 57P01) and
    /// waits until it is gone.
    public func stop() throws {
        try run("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// The running server's pid (the first line of postmaster.pid), nil when it is stopped.
    public func postmasterPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let line = text.split(separator: "\n").first, let pid = pid_t(line), pid > 0, kill(pid, 0) == 0 else { return nil }
        return pid
    }

    /// The server's own log, for a failing test's message.
    public var log: String { (try? String(contentsOfFile: socketDirectory + "/server.log", encoding: .utf8)) ?? "" }

    private func run(_ tool: String, _ arguments: [String]) throws {
        let program = binaries + "/" + tool
        let (executable, argv) = asRoot
            ? ("/bin/su", ["postgres", "-s", "/bin/sh", "-c", ([program] + arguments).map(Self.shellQuoted).joined(separator: " ")])
            : (program, arguments)
        let result = try ChildProcess.run(
            executable, argv, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"], directory: directory.path, timeout: .seconds(90))
        guard result.exitCode == 0 else {
            throw Unavailable(description: "\(tool) \(arguments.last ?? "") failed (\(result.termination)): \(result.stderr)\(result.stdout)")
        }
    }

    private static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
