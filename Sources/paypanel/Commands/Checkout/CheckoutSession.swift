import Foundation
import PayPanel
import PayPanelDemo

/// What both checkout front ends share: the flow, the backend, the panel-update watcher and
/// the clock (virtual with `--now`).
@MainActor
final class CheckoutSession {
    var flow: CheckoutFlow
    let backend: any DeviceBackend
    /// Nil against a server (`--server`): its updates are the merchant's, not this device's files.
    let updates: PanelUpdateWatcher?
    let clock: any WallClock
    /// The width of the device's screens.
    let width: Int

    init(flow: CheckoutFlow, backend: any DeviceBackend, updates: PanelUpdateWatcher?, clock: any WallClock, width: Int) {
        self.flow = flow
        self.backend = backend
        self.updates = updates
        self.clock = clock
        self.width = width
    }

    var now: Date { clock.now() }

    /// Applies the panel updates that arrived; returns a message for each one not applied.
    func pollUpdates() -> [String] {
        guard let updates else { return [] }
        do {
            return try updates.poll(&flow, now: now)
        } catch {
            return ["cannot read panel updates from the payments database: \((error as? any PayPanelError)?.message ?? "\(error)")"]
        }
    }

    /// Lets `seconds` pass: virtual time moves at once, real time is slept.
    func wait(seconds: Double) async {
        if let manual = clock as? ManualClock {
            manual.advance(by: seconds)
        } else if seconds > 0 {
            try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        }
    }

    /// The current screen's lines.
    func render(showsFocus: Bool, width: Int? = nil, maximumHeight: Int? = nil, spinnerFrame: Int = 0) -> [ScreenLine] {
        CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(
            width: width ?? self.width, now: now, showsFocus: showsFocus, maximumHeight: maximumHeight, spinnerFrame: spinnerFrame))
    }
}

extension CheckoutSession {
    /// The end of a session, the same in both front ends: the backend's checkout is closed
    /// (a server's, left open otherwise), then the last line is printed — or, with `--json`,
    /// the `checkout_closed` and `exit` events.
    func report(_ ending: CheckoutSessionEnding, console: Console, json: Bool) async {
        guard let flowEnding = ending.ending else {
            // A signal cut the backend call off: its intent (maybe created by that very call)
            // keeps whatever the last committed transition says.
            let which = flow.intent.map { "intent \($0.id)" } ?? "its intent"
            let settle = flow.configuration.nextSteps.settles
            if json {
                console.printJSON(.orderedObject([
                    ("event", "exit"), ("reason", "interrupted"), ("exitStatus", .number(Int(ending.exitCode))),
                    ("intentId", .optional(flow.intent?.id)), ("status", .optional(flow.intent?.status.rawValue)),
                ]), pretty: false)
            } else {
                console.print("Left while a payment was in flight: \(which) stays processing until \(settle).")
            }
            return
        }
        let closing = await backend.close(after: flowEnding)
        if json {
            if let closing { console.printJSON(closing.json, pretty: false) }
            var exit = flowEnding.json
            // A signal's status (130 for Ctrl-C) is the process's, so the event says it too.
            if ending.signal != nil, var members = exit.objectValue {
                members["exitStatus"] = .number(Int(ending.exitCode))
                exit = .object(members)
            }
            console.printJSON(exit, pretty: false)
        } else {
            console.print(flowEnding.summary + (closing.map { " " + $0.summary } ?? ""))
        }
    }
}

/// How a checkout session ended: the flow's ending, or a signal that cut it short.
struct CheckoutSessionEnding {
    /// Nil only when a signal ended the session while a payment was in flight.
    let ending: CheckoutEnding?
    /// The signal (SIGINT for Ctrl-C too) that ended the session, if one did.
    let signal: Int32?

    /// The flow's status (0 paid or quit, 1 failed); 128 + the signal's number when a signal
    /// ended it (130 for Ctrl-C, 143 for SIGTERM), as shells report interrupted programs.
    var exitCode: Int32 {
        if let signal { return 128 + signal }
        return ending?.exitCode ?? 1
    }
}
