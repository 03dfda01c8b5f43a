import Foundation
import PayPanel
import PayPanelDemo
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The backend result a detached task hands back to the loop.
final class BackendResultBox: Sendable {
    private let stored = Mutex<BackendResult?>(nil)

    func set(_ result: BackendResult) { stored.withLock { $0 = result } }
    func take() -> BackendResult? { stored.withLock { value in defer { value = nil }; return value } }
    var isReady: Bool { stored.withLock { $0 != nil } }
}

/// The state of the running terminal UI.
@MainActor
struct TerminalLoop {
    let session: CheckoutSession
    let terminal: RawTerminal
    let waker: WakePipe
    let signals: SignalWatcher
    let frame: TerminalFrame

    private var decoder = KeyDecoder()
    /// A refusal or a warning, until the next accepted input.
    private var status: ScreenLine?
    /// What the backend did lately (intents, the token, declines, updates), newest last.
    private var log: [ScreenLine] = []
    private var inFlight: (box: BackendResultBox, startedAt: ContinuousClock.Instant)?
    private var signal: Int32?
    private var lastFrame = ""
    private var size = (columns: 80, rows: 24)
    private var spinnerFrame = 0

    init(session: CheckoutSession, terminal: RawTerminal, waker: WakePipe, signals: SignalWatcher, frame: TerminalFrame) {
        self.session = session
        self.terminal = terminal
        self.waker = waker
        self.signals = signals
        self.frame = frame
        // The log starts with test mode's notice; the header keeps saying it after it scrolls away.
        if let notice = session.backend.testModeNotice { log.append(ScreenLine("• " + notice, style: .notice)) }
    }

    mutating func run() async -> CheckoutSessionEnding {
        size = terminal.size
        var lastTick = ContinuousClock.now
        var lastPoll = lastTick - .seconds(1)
        while session.flow.ending == nil && signal == nil {
            let tick = ContinuousClock.now
            // With --now, time runs from there at real speed; a processor call in flight moves
            // the virtual clock itself.
            if let manual = session.clock as? ManualClock, inFlight == nil {
                manual.advance(by: (tick - lastTick).timeInterval)
            }
            lastTick = tick
            if tick - lastPoll >= .milliseconds(250) {
                lastPoll = tick
                for message in session.pollUpdates() { status = ScreenLine(message, style: .notice) }
                showNotes()
            }
            if let pending = inFlight, pending.box.isReady, tick - pending.startedAt >= TerminalCheckout.minimumSpinner,
                let result = pending.box.take()
            {
                inFlight = nil
                handle(session.flow.receive(result, at: session.now))
            }
            draw()
            if session.flow.ending != nil { break }
            wait(milliseconds: inFlight != nil ? 80 : (decoder.hasPendingBytes ? 30 : 250))
            if inFlight != nil { spinnerFrame += 1 }
        }
        if signal != nil, inFlight == nil, session.flow.ending == nil {
            await leave()
        }
        return CheckoutSessionEnding(ending: session.flow.ending, signal: signal)
    }

    /// Quits after a signal or Ctrl-C: cancels an unpaid intent (showing it) and ends.
    private mutating func leave() async {
        var step = session.flow.handle(.quit, at: session.now)
        while case .backend(let request) = step {
            draw()
            step = session.flow.receive(await session.backend.perform(request), at: session.now)
        }
    }

    /// Waits for a key, a signal or the backend, at most `milliseconds`, and handles them.
    private mutating func wait(milliseconds: Int32) {
        var descriptors = [
            pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: waker.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        waker.drain()
        for number in signals.take() {
            if number == SIGWINCH {
                lastFrame = ""  // redraw everything at the new size
            } else {
                signal = number
            }
        }
        let current = terminal.size
        if current != size {
            size = current
            lastFrame = ""
        }
        var keys: [DeviceKey] = []
        if ready > 0, descriptors[0].revents & Int16(POLLIN) != 0 {
            guard let bytes = terminal.readAvailable() else {
                signal = SIGHUP
                return
            }
            keys = decoder.decode(bytes)
        } else if ready > 0, descriptors[0].revents & Int16(POLLHUP | POLLERR) != 0 {
            signal = SIGHUP  // the terminal went away
            return
        } else if decoder.hasPendingBytes {
            keys = decoder.flushPendingEscape()
        }
        for key in keys where signal == nil && session.flow.ending == nil {
            if key == .interrupt {
                // Ctrl-C: leave like q, but report the interruption in the exit status.
                signal = SIGINT
                return
            }
            handle(session.flow.handle(key: key, at: session.now))
        }
    }

    private mutating func handle(_ step: CheckoutStep) {
        switch step {
        case .updated:
            status = nil
            showNotes()
        case .rejected(let message):
            status = ScreenLine(message, style: .notice)
        case .backend(let request):
            status = nil
            showNotes()
            let box = BackendResultBox()
            let backend = session.backend
            let waker = self.waker
            spinnerFrame = 0
            inFlight = (box, ContinuousClock.now)
            // Detached: the main actor is busy running this loop.
            Task.detached {
                box.set(await backend.perform(request))
                waker.wake()
            }
        case .finished:
            showNotes()
        }
    }

    /// Adds the flow's notes (a decline, an update, an intent, the token) to the log under
    /// the screen, which keeps the last few.
    private mutating func showNotes() {
        for note in session.flow.takeNotes() {
            let style: ScreenStyle = if case .declined = note { .failure } else { .muted }
            log.append(ScreenLine("• " + note.text, style: style))
        }
        log = Array(log.suffix(Self.logLines))
    }

    static let logLines = 4

    private mutating func draw() {
        let hints = session.flow.keyHints
        let hintLines = TerminalFrame.wrapHints(hints, width: max(size.columns - 2, 10)).count
        let width = min(session.width, max(size.columns - 2, RenderOptions.minimumWidth))
        // The box first; the log gets what room is left (each line cut to the terminal).
        // The sheet's card list scrolls to leave the hints their rows; the frame cuts any
        // other box that is still too tall (TerminalFrame.compose).
        let box = session.render(showsFocus: true, width: width, maximumHeight: max(size.rows - hintLines - 1, TerminalFrame.minimumBoxLines),
                                 spinnerFrame: spinnerFrame)
        let room = max(size.rows - box.count - hintLines - 3, 0)
        // A refusal matters more than the log: it keeps its line when room is short.
        let kept = status.map { [$0] + log.suffix(max(room - 1, 0)) } ?? Array(log.suffix(room))
        let footer = kept.prefix(room).map { line in
            ScreenLine(line.text.truncated(toColumns: max(size.columns - 2, 10)), style: line.style)
        }
        // The header shows the checkout's clock: virtual time with --now.
        let time = Timestamp.format(session.now).prefix(19).replacingOccurrences(of: "T", with: " ")
        let mode = session.backend.testModeNotice == nil ? "" : " · test mode"
        let header = "PayPanel checkout\(mode) · \(session.flow.screen.title) · \(time) UTC"
        let text = frame.compose(box: box, hints: hints, footer: footer, header: header, columns: size.columns, rows: size.rows)
        guard text != lastFrame else { return }
        terminal.send(lastFrame.isEmpty ? "\u{1B}[2J" + text : text)
        lastFrame = text
    }
}
