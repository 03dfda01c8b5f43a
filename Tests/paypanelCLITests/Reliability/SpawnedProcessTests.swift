import Foundation
import PayPanelReliability
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The one way the tests, soaks and benchmarks start programs: what the child gets (its
/// streams, none of our descriptors), how its end is read, and how it is stopped.
@Suite struct SpawnedProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin"]

    /// What each descriptor of process `pid` is (`pipe:[123]`, `/dev/null`, …), from /proc.
    static func descriptorTargets(of pid: pid_t) throws -> [String: String] {
        var targets: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") {
            targets[name] = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")) ?? "?"
        }
        return targets
    }

    /// A signal mask of /proc/PID/status (`SigBlk`, `SigIgn`, …): hexadecimal, bit n-1 for signal n.
    static func signalMask(_ name: String, of pid: pid_t) -> UInt64? {
        ChildProcess.readText("/proc/\(pid)/status").split(separator: "\n").first { $0.hasPrefix(name + ":") }
            .flatMap { UInt64($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    @Test func theChildHoldsNeitherEndOfOurPipeOnlyItsThreeStreams() throws {
        // A pipe without close-on-exec: a child started by fork and exec would inherit both ends.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let pipeEnd = try #require(try Self.descriptorTargets(of: getpid())[String(ends[0])])
        #expect(pipeEnd.hasPrefix("pipe:"), "\(pipeEnd)")
        let child = try SpawnedProcess("/bin/sleep", ["30"], environment: Self.environment)
        defer { child.crash() }
        // While sleep starts, its dynamic loader briefly holds a library open as descriptor 3 (a
        // loaded machine, the AddressSanitizer pass of the clean-clone run, once looked then):
        // look until the start-up is over, and never see our pipe in any look.
        var theirs = try Self.descriptorTargets(of: child.pid)
        let deadline = Date().addingTimeInterval(10)
        while Set(theirs.keys) != ["0", "1", "2"], !theirs.values.contains(pipeEnd), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            theirs = try Self.descriptorTargets(of: child.pid)
        }
        #expect(!theirs.values.contains(pipeEnd), "\(theirs)")
        #expect(Set(theirs.keys) == ["0", "1", "2"], "\(theirs)")
        #expect(theirs["0"] == "/dev/null" && theirs["1"] == "/dev/null" && theirs["2"] == "/dev/null", "\(theirs)")
    }

    @Test func theChildBlocksAndIgnoresNoSignalWhateverTheThreadThatStartedItDid() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let child = Result { try SpawnedProcess("/bin/sleep", ["30"], environment: Self.environment) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let process = try child.get()
        defer { process.crash() }
        // Only the 31 standard signals count (glibc keeps two real-time signals of its own out
        // of sigfillset).
        #expect(Self.signalMask("SigBlk", of: process.pid).map { $0 & 0x7FFF_FFFF } == 0)
        #expect(Self.signalMask("SigIgn", of: process.pid).map { $0 & 0x7FFF_FFFF } == 0)
    }

    @Test func aDescriptorGivenAsAStreamIsTheChildsInput() throws {
        let directory = try TemporaryDirectory("paypanel-spawn")
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let child = try SpawnedProcess(
            "/bin/cat", [], environment: Self.environment, stdin: .descriptor(ends[0]), stdout: .file(directory.file("out")))
        close(ends[0])
        _ = "hello\n".withCString { write(ends[1], $0, 6) }
        close(ends[1])  // cat sees the end of its input only if it holds no writing end itself
        #expect(child.waitForExit(within: .seconds(30)))
        #expect(child.termination == .exited(0))
        #expect(ChildProcess.readText(directory.file("out")) == "hello\n")
    }

    @Test func anExitCodeAndAKillAreToldApart() throws {
        let exits = try SpawnedProcess("/bin/sh", ["-c", "exit 3"], environment: Self.environment)
        #expect(exits.waitForExit(within: .seconds(30)))
        #expect(exits.termination == .exited(3))
        #expect(exits.status == 3)
        #expect(!exits.wasKilled)
        #expect(!exits.signal(SIGTERM), "no signal once it has been reaped")

        let killed = try SpawnedProcess("/bin/sleep", ["30"], environment: Self.environment)
        #expect(killed.isRunning)
        killed.crash()
        #expect(killed.termination == .signaled(SIGKILL))
        #expect(killed.wasKilled)
    }

    @Test func stopIsSIGTERMThenSIGKILLAndMinusOneWhenTERMIsIgnored() throws {
        let polite = try SpawnedProcess("/bin/sleep", ["30"], environment: Self.environment)
        #expect(polite.stop(within: .seconds(30)) == SIGTERM)
        #expect(polite.termination == .signaled(SIGTERM))

        // `exec`, so the one process that ignores SIGTERM is the one SIGKILL reaches.
        let stubborn = try SpawnedProcess("/bin/sh", ["-c", "trap '' TERM; exec sleep 30"], environment: Self.environment)
        // The signal comes once the trap is set: SIGTERM is in the process's ignored set (a
        // fixed pause here would fail the test on a loaded machine, and prove nothing on an idle one).
        let ignoresTERM = { (Self.signalMask("SigIgn", of: stubborn.pid) ?? 0) & (1 << UInt64(SIGTERM - 1)) != 0 }
        let deadline = Date().addingTimeInterval(30)
        while !ignoresTERM(), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try #require(ignoresTERM(), "the shell did not set its trap within 30 s")
        #expect(stubborn.stop(within: .milliseconds(300)) == -1)
        #expect(stubborn.wasKilled)
    }

    @Test func aMissingProgramIsAnErrorThatNamesIt() {
        #expect(throws: ChildProcessError.self) {
            try SpawnedProcess("/nonexistent/paypanel", [], environment: Self.environment)
        }
    }

    @Test func aServerThatEndsWithoutItsLineIsAnErrorWithItsStandardError() throws {
        let directory = try TemporaryDirectory("paypanel-spawn")
        let error = #expect(throws: ListeningProcessError.self) {
            try ListeningProcess(
                "/bin/sh", ["-c", "echo 'Error: the port is in use' >&2; exit 2"], environment: Self.environment,
                outputPrefix: directory.file("server"))
        }
        #expect(error?.ended == .exited(2))
        #expect(error?.message.contains("Error: the port is in use") == true)
        #expect(error?.code == "server_not_started")
    }

    @Test func aServerIsKnownByItsAnnouncedPortAndStoppedByItsPid() throws {
        let directory = try TemporaryDirectory("paypanel-spawn")
        let server = try ListeningProcess(
            "/bin/sh", ["-c", "echo starting; echo 'listening on http://127.0.0.1:4711'; exec sleep 30"], environment: Self.environment,
            outputPrefix: directory.file("server"))
        #expect(server.port == 4711)
        #expect(server.isRunning)
        #expect(server.stop(within: .seconds(30)) == SIGTERM)
        #expect(!server.isRunning)
    }

    @Test(arguments: [
        ("listening on http://127.0.0.1:8080\n", 8080),
        ("loading\nlistening on http://[::1]:443\n", 443),
        (#"{"listening":"http://127.0.0.1:9000","port":9000}"# + "\n", 9000),
        ("listening on http://127.0.0.1:\n", nil),
        ("starting\n", nil),
        ("listening on http://127.0.0.1:47", nil),  // still being written: 4711 may follow
    ] as [(String, Int?)])
    func theAnnouncedPortIsReadFromATextOrAJSONLine(output: String, port: Int?) {
        #expect(ListeningProcess.announcedPort(in: output) == port)
    }
}
