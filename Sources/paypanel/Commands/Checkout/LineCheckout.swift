import Foundation
import PayPanel
import PayPanelDemo

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

    func run() async -> CheckoutSessionEnding {
        if let notice = session.backend.testModeNotice {
            // First, before any screen: a transcript never reads as a production checkout.
            if json {
                console.printJSON(.orderedObject([("event", "test_mode"), ("message", .string(notice))]), pretty: false)
            } else {
                console.print(notice)
            }
        }
        printScreen()
        while session.flow.ending == nil {
            guard let line = console.readLine() else {
                printMessage("end of input: leaving the checkout", event: "end_of_input")
                await perform(session.flow.handle(.quit, at: session.now))
                break
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
                await perform(session.flow.handle(action, at: session.now))
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
        let ending = session.flow.ending
        if let ending {
            if json { console.printJSON(ending.json, pretty: false) } else { console.print(ending.summary) }
        }
        return CheckoutSessionEnding(ending: ending, signal: nil)
    }

    /// Follows a step through the backend until the flow waits for the payer again.
    private func perform(_ first: CheckoutStep) async {
        var step = first
        while true {
            switch step {
            case .updated:
                printNotes()
                printScreen()
                return
            case .rejected(let message):
                reportRejected(message)
                return
            case .backend(let request):
                printNotes()
                printScreen()
                let result = await session.backend.perform(request)
                step = session.flow.receive(result, at: session.now)
            case .finished:
                printNotes()
                return
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
                let what = state.step == .payment ? "Processing" : "Checking with your bank"
                console.print("… \(what): \(state.cardLabel) · \(state.amount) (\(state.channel.title))")
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
