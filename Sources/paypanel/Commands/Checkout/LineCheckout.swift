import Foundation
import PayPanel
import PayPanelDemo

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checkout driven by one command per line (standard input not a terminal, `--lines`,
/// `--json`). Each command's result is printed as the screen in plain text, or as JSON events
/// (one object per line) with `--json`. A command that does not work here prints the ones
/// that do and the session goes on; the end of input quits.
///
/// Panel updates are looked for before each command and after `wait`, so a script sees them
/// at a deterministic point: with `--now`, time only moves with `wait` and the processor's
/// delays.
@MainActor
struct LineCheckout {
    let session: CheckoutSession
    let console: Console
    let json: Bool

    func run() async throws -> CheckoutSessionEnding {
        let waker = try WakePipe()
        // Ctrl-C (and SIGTERM, SIGHUP) leave as `quit` does, canceling an unpaid intent and
        // printing the last line, as on the full screen: caught, never the default action.
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP], waker: waker)
        defer { signals.stop() }
        let input = LineInput(waker: waker, signals: signals)
        if let notice = session.backend.testModeNotice {
            // First, before any screen: a transcript never reads as a production checkout.
            if json {
                console.printJSON(.orderedObject([("event", "test_mode"), ("message", .string(notice))]), pretty: false)
            } else {
                console.print(notice)
            }
        }
        printScreen()
        var signal: Int32?
        reading: while session.flow.ending == nil {
            console.flush()
            let line: String
            switch input.next() {
            case .line(let text):
                line = text
            case .end:
                printMessage("end of input: leaving the checkout", event: "end_of_input")
                _ = await perform(session.flow.handle(.quit, at: session.now), waker: waker, signals: signals)
                break reading
            case .signal(let number):
                signal = number
                _ = await perform(session.flow.handle(.quit, at: session.now), waker: waker, signals: signals)
                break reading
            }
            let command: LineCommand
            switch LineCommand.parse(line) {
            case .success(.nothing):
                continue
            case .success(let parsed):
                command = parsed
            case .failure(let error):
                reportInvalid(line, error.message)
                continue
            }
            if !json { console.print("> " + LineCommand.redacted(line)) }
            applyUpdates()
            switch command {
            case .action(let action):
                if let number = await perform(session.flow.handle(action, at: session.now), waker: waker, signals: signals) {
                    signal = number
                    break reading
                }
            case .wait(let seconds):
                await session.wait(seconds: seconds)
                if json {
                    console.printJSON(.orderedObject([("event", "waited"), ("seconds", .string(Self.format(seconds))), ("now", .string(Timestamp.format(session.now)))]), pretty: false)
                } else {
                    console.print("(\(Self.format(seconds)) s passed; now \(Timestamp.format(session.now)))")
                }
                applyUpdates()
            case .show:
                printScreen()
            case .help:
                printHelp()
            case .nothing:
                break
            }
        }
        let ending = CheckoutSessionEnding(ending: session.flow.ending, signal: signal)
        await session.report(ending, console: console, json: json)
        return ending
    }

    /// Follows a step through the backend until the flow waits for the payer again. Returns
    /// the signal that cut a backend call short (the payment stays in flight), else nil.
    private func perform(_ first: CheckoutStep, waker: WakePipe, signals: SignalWatcher) async -> Int32? {
        var step = first
        while true {
            switch step {
            case .updated:
                printNotes()
                printScreen()
                return nil
            case .rejected(let message):
                reportRejected(message)
                return nil
            case .backend(let request):
                printNotes()
                printScreen()
                // "Processing…" is seen at once: a slow processor keeps the answer for up to 25 s.
                console.flush()
                let box = BackendResultBox()
                let backend = session.backend
                Task.detached {
                    box.set(await backend.perform(request))
                    waker.wake()
                }
                // Waits for the answer or a signal, whichever comes first; the main actor is
                // ours meanwhile, as in the terminal loop.
                let result: BackendResult
                while true {
                    if let ready = box.take() {
                        result = ready
                        break
                    }
                    var descriptor = pollfd(fd: waker.readDescriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&descriptor, 1, 250)
                    waker.drain()
                    // A cancel on the way out is not cut short: it is what the signal asked for.
                    if case .cancel = request {} else if let number = signals.take().first { return number }
                }
                step = session.flow.receive(result, at: session.now)
            case .finished:
                printNotes()
                return nil
            }
        }
    }

    /// Applies panel updates; prints them, and the screen again when it shows the panel.
    private func applyUpdates() {
        let messages = session.pollUpdates()
        for message in messages { printMessage(message, event: "update_not_applied") }
        let notes = session.flow.takeNotes()
        guard !notes.isEmpty else { return }
        print(notes)
        if [.banner, .panel].contains(session.flow.screen) { printScreen() }
    }

    private func printNotes() {
        print(session.flow.takeNotes())
    }

    private func print(_ notes: [CheckoutNote]) {
        for note in notes {
            if json { console.printJSON(note.json, pretty: false) } else { console.print("• " + note.text) }
        }
    }

    private func printScreen() {
        let flow = session.flow
        if json {
            if flow.screen != .finished { console.printJSON(flow.screenEvent(at: session.now), pretty: false) }
            return
        }
        switch flow.screen {
        case .authorizing:
            if let state = flow.authorizing {
                // The words of the full screen's spinner.
                let what = state.step == .payment ? "Processing…" : "Checking with your bank…"
                console.print("\(what) \(state.cardLabel) · \(state.amount) (\(state.channel.title))")
            }
        case .closing:
            console.print("… Canceling the unpaid intent \(flow.intent?.id ?? "")")
        case .finished:
            break
        default:
            console.print(session.render(showsFocus: false).map(\.text).joined(separator: "\n"))
            console.print("Commands: " + flow.lineCommands.joined(separator: ", "))
        }
    }

    private func printHelp() {
        let commands = session.flow.lineCommands + ["help"]
        if json {
            console.printJSON(.orderedObject([("event", "help"), ("screen", .string(session.flow.screen.rawValue)),
                                              ("commands", .array(commands.map(JSONValue.string)))]), pretty: false)
        } else {
            console.print("On \(session.flow.screen.name): " + commands.joined(separator: ", "))
        }
    }

    private func printMessage(_ message: String, event: String) {
        if json {
            console.printJSON(.orderedObject([("event", .string(event)), ("message", .string(message))]), pretty: false)
        } else {
            console.print("(\(message))")
        }
    }

    private func reportInvalid(_ line: String, _ message: String) {
        report(input: LineCommand.redacted(line), message: message)
    }

    private func reportRejected(_ message: String) {
        report(input: nil, message: message)
    }

    /// A command that does not work: what was wrong and the commands that work here.
    private func report(input: String?, message: String) {
        let commands = session.flow.lineCommands
        if json {
            console.printJSON(.orderedObject([
                ("event", "invalid_command"), ("input", .optional(input)), ("message", .string(message)),
                ("screen", .string(session.flow.screen.rawValue)), ("commands", .array(commands.map(JSONValue.string))),
            ]), pretty: false)
        } else {
            if let input { console.print("> " + input) }
            console.printError("error: \(message)")
            console.printError("  on \(session.flow.screen.name): \(commands.joined(separator: ", "))")
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
    }
}

/// Standard input one line at a time, read with poll(2) beside the wake pipe: a signal that
/// arrives while the checkout waits for the next command wakes it, where a blocking read
/// would keep it from canceling the unpaid intent and printing the last line.
final class LineInput {
    enum Next {
        case line(String)
        case end
        case signal(Int32)
    }

    private let waker: WakePipe
    private let signals: SignalWatcher
    private var pending: [UInt8] = []
    private var ended = false

    init(waker: WakePipe, signals: SignalWatcher) {
        self.waker = waker
        self.signals = signals
    }

    /// The next line (without its line break, as `readLine` gives it), the end of input, or a
    /// signal, which comes before lines already read.
    func next() -> Next {
        while true {
            if let number = signals.take().first { return .signal(number) }
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return .line(String(decoding: line, as: UTF8.self))
            }
            if ended {
                guard !pending.isEmpty else { return .end }
                defer { pending.removeAll() }
                return .line(String(decoding: pending, as: UTF8.self))
            }
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: waker.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            let pollError = errno  // before drain's reads change it
            waker.drain()
            if ready < 0 {
                // A caught signal interrupts the poll (EINTR): it is taken at the top.
                if pollError != EINTR { ended = true }
                continue
            }
            guard descriptors[0].revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress!, $0.count) }
            let readError = errno
            if count > 0 {
                pending += chunk[..<count]
            } else if count == 0 || (readError != EINTR && readError != EAGAIN) {
                ended = true
            }
        }
    }
}
