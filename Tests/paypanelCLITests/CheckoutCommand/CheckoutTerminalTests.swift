import Foundation
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The raw-mode UI through a pseudo-terminal: keys in, frames out, and the terminal's
/// settings exactly as before however the checkout ends.
@Suite(.enabled(if: PseudoTerminal.isAvailable, "openpty is not available here"))
struct CheckoutTerminalTests {
    @Test func theHappyPathPaysWithTwoKeysAndRestoresTheTerminal() throws {
        let session = try TerminalSession()
        defer { session.stop() }
        let before = session.terminal.attributes()
        try session.waitFor("Enter expand")
        // The demo trusts the test root: the header says so, and the log's first line.
        #expect(session.output.contains("PayPanel checkout · test mode · "))
        #expect(session.output.contains("• test mode: tokens are signed by PayPanel's test root"))
        // Raw mode is on while the checkout runs: no canonical input, no echo, no signals.
        let raw = session.terminal.attributes()
        #expect(raw.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
        #expect(raw.c_oflag & tcflag_t(OPOST) != 0)
        session.terminal.send("\r")
        try session.waitFor("Buy with Apple Pay ] ◀")
        session.terminal.send("a")
        try session.waitFor("▶ [ Confirm with Side Button ] ◀")
        session.terminal.send("\r")
        try session.waitFor("✓ Done")
        session.terminal.send("\r")
        #expect(try session.waitForExit() == 0)
        #expect(PseudoTerminal.same(before, session.terminal.attributes()))
        let output = session.output
        #expect(output.contains("\u{1B}[?1049h"))
        let leave = try #require(output.range(of: "\u{1B}[?1049l"))
        #expect(output[leave.upperBound...].contains("Paid 5.00 USD: intent pi_"))
        // NO_COLOR: no styling at all.
        #expect(!output.contains("\u{1B}[1m") && !output.contains("\u{1B}[7m"))
        let intents = try CLIRunner.run(["payments", "list", "--json"], in: session.directory)
        #expect(intents.stdout.contains("\"status\":\"succeeded\""))
    }

    @Test func ctrlCAfterADeclineCancelsTheIntentExits130AndRestoresTheTerminal() throws {
        let session = try TerminalSession()
        defer { session.stop() }
        let before = session.terminal.attributes()
        try session.waitFor("Enter expand")
        session.terminal.send("\r")
        try session.waitFor("Pay in app")
        session.terminal.send("a")
        try session.waitFor("Confirm with Side Button")
        session.terminal.send("4\r")
        try session.waitFor("insufficient funds. Try")
        session.terminal.send("\u{03}")
        #expect(try session.waitForExit() == 130)
        #expect(PseudoTerminal.same(before, session.terminal.attributes()))
        #expect(session.output.contains("Left the checkout; intent pi_"))
        let intents = try CLIRunner.run(["payments", "list", "--json"], in: session.directory)
        #expect(intents.stdout.contains("\"status\":\"canceled\""))
    }

    @Test func sigtermRestoresTheTerminalAndExits143() throws {
        let session = try TerminalSession()
        defer { session.stop() }
        let before = session.terminal.attributes()
        try session.waitFor("Enter expand")
        session.terminal.send("\r")
        try session.waitFor("Pay in app")
        session.process.signal(SIGTERM)
        #expect(try session.waitForExit() == 143)
        #expect(PseudoTerminal.same(before, session.terminal.attributes()))
        #expect(session.output.contains("\u{1B}[?25h\u{1B}[?1049l"))
    }

    @Test func aResizeRedrawsTheFrameToTheNewWidth() throws {
        let session = try TerminalSession()
        defer { session.stop() }
        try session.waitFor("Enter expand")
        session.terminal.resize(columns: 50, rows: 20)
        session.process.signal(SIGWINCH)
        // 48 columns: the widest box that leaves a margin in 50.
        try session.waitFor("┌" + String(repeating: "─", count: 46) + "┐")
        session.terminal.send("q")
        #expect(try session.waitForExit() == 0)
    }

    @Test func aDumbTerminalGetsLineMode() throws {
        let session = try TerminalSession(term: "dumb")
        defer { session.stop() }
        try session.waitFor("Commands: expand")
        session.terminal.send("quit\r")
        #expect(try session.waitForExit() == 0)
        #expect(!session.output.contains("\u{1B}[?1049h"))
    }
}

/// A pseudo-terminal pair: the test holds the master (it types and reads the screen), the
/// checkout gets the slave as its standard input, output and error.
final class PseudoTerminal: @unchecked Sendable {
    // Used from the test's thread only.
    let master: Int32
    let slave: Int32

    static let isAvailable: Bool = {
        guard let terminal = PseudoTerminal(columns: 80, rows: 24) else { return false }
        terminal.close()
        return true
    }()

    init?(columns: Int, rows: Int) {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { return nil }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master
        self.slave = slave
    }

    func attributes() -> termios {
        var settings = termios()
        _ = tcgetattr(slave, &settings)
        return settings
    }

    /// The same flags and control characters.
    static func same(_ a: termios, _ b: termios) -> Bool {
        var left = a
        var right = b
        let controls = withUnsafeBytes(of: &left.c_cc) { Array($0) } == withUnsafeBytes(of: &right.c_cc) { Array($0) }
        return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_cflag == b.c_cflag && a.c_lflag == b.c_lflag && controls
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    func resize(columns: Int, rows: Int) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// What the checkout wrote since the last call.
    func readAvailable() -> [UInt8] {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            collected += buffer[0..<count]
        }
        return collected
    }

    func close() {
        Glibc.close(master)
        Glibc.close(slave)
    }
}

/// `paypanel checkout` on a pseudo-terminal (80×24 unless told), in its own directory, at a fixed time.
final class TerminalSession: @unchecked Sendable {
    // Used from the test's thread only.
    let directory: TemporaryDirectory
    let terminal: PseudoTerminal
    let process: SpawnedProcess
    private var bytes: [UInt8] = []

    init(term: String = "xterm-256color", columns: Int = 80, rows: Int = 24) throws {
        directory = try TemporaryDirectory("paypanel-tty")
        guard let terminal = PseudoTerminal(columns: columns, rows: rows) else { throw CheckoutTestTimeout(description: "openpty failed") }
        self.terminal = terminal
        process = try SpawnedProcess(
            CLIRunner.binary.path(percentEncoded: false), ["checkout", "--now", LineCheckoutHarness.now],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path, "TERM": term, "NO_COLOR": "1"], workingDirectory: directory.path,
            stdin: .descriptor(terminal.slave), stdout: .descriptor(terminal.slave), stderr: .descriptor(terminal.slave))
    }

    /// Everything the checkout wrote so far, as text.
    var output: String {
        bytes += terminal.readAvailable()
        return String(decoding: bytes, as: UTF8.self)
    }

    func waitFor(_ text: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !output.contains(text) {
            guard Date() < deadline else {
                throw CheckoutTestTimeout(description: "waited \(Int(timeout)) s for \(text); the terminal shows:\n\(output)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func waitForExit(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            _ = output  // keep the pty drained so the checkout never blocks on a full buffer
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard let status = process.status else { throw CheckoutTestTimeout(description: "the checkout did not exit; the terminal shows:\n\(output)") }
        _ = output
        return status
    }

    /// Ends the checkout if a failed expectation left it running (by its pid), then closes the pty.
    func stop() {
        process.crash()
        terminal.close()
    }
}
