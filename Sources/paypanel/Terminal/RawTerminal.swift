import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal in raw mode for the interactive checkout: keys arrive one by one without
/// echo, Ctrl-C arrives as a key (ISIG off) rather than killing the process mid-frame, and
/// the screen is drawn on the alternate screen with the cursor hidden. Output processing
/// (OPOST) stays on, so "\n" still returns the carriage.
///
/// `restore()` puts back exactly the settings found at `enter()` and is safe to call more
/// than once: the caller restores on the normal path, on errors, on Ctrl-C and on SIGTERM;
/// a crash (a trap, SIGSEGV, SIGABRT) is covered by `CrashRestorer`.
final class RawTerminal {
    let input: Int32
    let output: Int32
    private var original = termios()
    private(set) var isRaw = false

    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
    }

    /// Raw mode only when both ends are terminals and TERM is not `dumb` (a dumb terminal
    /// cannot move the cursor, so it gets line mode).
    static func isInteractive(environment: [String: String]) -> Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && environment["TERM"] != "dumb"
    }

    /// Switches to raw mode and the alternate screen.
    func enter() throws {
        guard !isRaw else { return }
        guard tcgetattr(input, &original) == 0 else {
            throw CLIFailure(code: "terminal_unavailable", message: "cannot read the terminal's settings (errno \(errno)); run with --lines for line mode")
        }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        // Reads return at once with whatever is there: the loop polls before reading.
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        CrashRestorer.install(original: original, descriptor: input)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            CrashRestorer.uninstall()
            throw CLIFailure(code: "terminal_unavailable", message: "cannot switch the terminal to raw mode (errno \(errno)); run with --lines for line mode")
        }
        isRaw = true
        send(Self.enterSequence)
    }

    /// Puts the terminal back as it was: main screen, cursor shown, original settings.
    func restore() {
        guard isRaw else { return }
        isRaw = false
        send(Self.leaveSequence)
        _ = tcsetattr(input, TCSAFLUSH, &original)
        CrashRestorer.uninstall()
    }

    /// Alternate screen, hidden cursor, cleared screen.
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"
    /// Cursor shown, attributes reset, main screen back.
    static let leaveSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    /// Columns and rows; 80×24 when the terminal does not say.
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Writes `text` with one write call (more only if the kernel takes part of it).
    func send(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(output, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return  // the terminal is gone: nothing more can be shown
            }
            offset += written
        }
    }

    /// Reads what is available now (never blocks: VMIN and VTIME are 0).
    func readAvailable() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
        if count < 0 { return errno == EINTR || errno == EAGAIN ? [] : nil }
        return Array(buffer[0..<count])
    }
}

/// Restores the terminal when the process dies of a crash signal (a Swift trap is SIGILL or
/// SIGTRAP, `fatalError` can end in SIGABRT): the handler only calls async-signal-safe
/// functions (tcsetattr, write, sigaction), puts back the handler that was there before (the
/// Swift runtime's backtracer) and raises the signal again, so the crash is still reported.
enum CrashRestorer {
    // Read by the signal handler, which cannot capture context: written before the handlers
    // are installed and after they are removed, never while one can run.
    // The settings live in memory allocated once, not in a `termios` global: Swift 6.3.1 emits
    // a statically zero-initialized global of an imported C struct without the struct's
    // internal padding (termios is 60 bytes, such a global 57), so storing a termios into it
    // wrote 3 bytes past its end. Found by AddressSanitizer; the compiler defect is the one of
    // swiftlang/swift#90414 and #91387 (zero constants built without their padding).
    nonisolated(unsafe) private static let saved: UnsafeMutablePointer<termios> = {
        let settings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        settings.initialize(to: termios())
        return settings
    }()
    nonisolated(unsafe) private static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var previous: [sigaction] = Array(repeating: sigaction(), count: 65)
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    static func install(original: termios, descriptor fd: Int32) {
        saved.pointee = original
        descriptor = fd
        _ = RawTerminal.leaveSequenceBytes.count  // initialized now, not inside the handler
        for number in signals {
            var action = sigaction()
            let handler: @convention(c) (Int32) -> Void = { number in
                _ = tcsetattr(CrashRestorer.descriptor, TCSAFLUSH, CrashRestorer.saved)
                _ = RawTerminal.leaveSequenceBytes.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                _ = sigaction(number, &CrashRestorer.previous[Int(number)], nil)
                raise(number)
            }
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = handler
            #else
            action.__sigaction_u.__sa_handler = handler
            #endif
            sigaction(number, &action, &previous[Int(number)])
        }
    }

    static func uninstall() {
        guard descriptor >= 0 else { return }
        for number in signals { sigaction(number, &previous[Int(number)], nil) }
        descriptor = -1
    }
}

extension RawTerminal {
    /// `leaveSequence` as bytes, built before any crash so the handler does not allocate.
    static let leaveSequenceBytes: [UInt8] = Array(leaveSequence.utf8)
}
