import Foundation
import PayPanel
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The full-screen checkout on a terminal: raw mode, one write per frame, a spinner while the
/// backend works (which runs in its own task, so the screen stays alive), panel updates
/// polled every 250 ms, redraw on resize. The terminal is restored however the session ends:
/// normally, by an error, Ctrl-C, SIGTERM or SIGHUP (signals are caught for that), or a
/// crash (`CrashRestorer`).
@MainActor
struct TerminalCheckout {
    let session: CheckoutSession
    let console: Console

    /// How long the spinner shows at least, so a fast answer still reads as a step.
    static let minimumSpinner: Duration = .milliseconds(600)

    func run() async throws -> CheckoutSessionEnding {
        let terminal = RawTerminal()
        let waker = try WakePipe()
        console.flush()
        try terminal.enter()
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP, SIGWINCH], waker: waker)
        // Whatever happens below, the terminal is given back (the summary is buffered and
        // reaches the screen after this, at the console's flush).
        defer {
            signals.stop()
            terminal.restore()
        }
        var loop = TerminalLoop(session: session, terminal: terminal, waker: waker, signals: signals,
                                frame: TerminalFrame(usesColor: console.useColor))
        let ending = await loop.run()
        // The summary is buffered: it reaches the normal screen after the terminal is restored.
        await session.report(ending, console: console, json: false)
        return ending
    }
}
