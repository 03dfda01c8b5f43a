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
        if let ending = ending.ending {
            console.print(ending.summary)
        } else {
            // The backend call was cut off: its intent (maybe created by that very call)
            // keeps whatever the last committed transition says.
            let which = session.flow.intent.map { "intent \($0.id)" } ?? "its intent (see paypanel payments list)"
            console.print("Left while a payment was in flight: \(which) stays processing until 'paypanel reconcile' learns the outcome.")
        }
        return ending
    }
}
