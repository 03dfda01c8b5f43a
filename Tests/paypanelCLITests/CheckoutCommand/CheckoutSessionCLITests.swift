import Foundation
import PayPanel
import TestSupport
import Testing

/// Leaving at each step, panel updates while open, the transcript and the command's options.
@Suite struct CheckoutSessionCLITests {
    /// A way to leave the checkout and the intents it must leave behind.
    struct Leaving: Sendable, CustomStringConvertible {
        let description: String
        let script: [String]
        let options: [String]
        let exitStatus: Int32
        /// The status of every intent in the database afterwards.
        let statuses: [String]

        init(_ description: String, _ script: [String], options: [String] = [], exit: Int32 = 0, statuses: [String]) {
            self.description = description
            self.script = script
            self.options = options
            exitStatus = exit
            self.statuses = statuses
        }
    }

    static let leavings: [Leaving] = [
        Leaving("quit on the banner", ["quit"], statuses: []),
        Leaving("dismiss the banner", ["back"], statuses: []),
        Leaving("quit on the panel", ["expand", "select 3", "quit"], statuses: []),
        Leaving("quit on the sheet before paying", ["expand", "buy", "card 2", "quit"], statuses: []),
        Leaving("cancel the sheet, then quit", ["expand", "buy", "back", "back", "quit"], statuses: []),
        Leaving("quit in the app before paying", ["expand", "app", "card 1", "quit"], statuses: []),
        Leaving("quit on the sheet after a decline", ["expand", "buy", "card 4", "confirm", "quit"], statuses: ["canceled"]),
        Leaving("cancel the sheet after a decline, then quit", ["expand", "buy", "card 5", "confirm", "back", "quit"], statuses: ["canceled"]),
        Leaving("quit in the app after a decline", ["expand", "app", "card 6", "confirm", "quit"], statuses: ["canceled"]),
        Leaving("quit during the 3-D Secure challenge", ["expand", "buy", "card 7", "confirm", "quit"], statuses: ["canceled"]),
        Leaving("end of input after a decline", ["expand", "buy", "card 4", "confirm"], statuses: ["canceled"]),
        Leaving("quit after paying", ["expand", "buy", "confirm", "quit"], statuses: ["succeeded"]),
        Leaving("end of input after paying", ["expand", "buy", "confirm"], statuses: ["succeeded"]),
        Leaving("quit after a manual-capture authorization", ["expand", "buy", "confirm", "quit"], options: ["--capture", "manual"],
                statuses: ["requires_capture"]),
        Leaving("quit after the sheet's deadline", ["expand", "buy", "card 9", "confirm", "quit"], exit: 1, statuses: ["processing"]),
        Leaving("done after the sheet's deadline", ["expand", "buy", "card 8", "confirm", "done"], exit: 1, statuses: ["processing"]),
        Leaving("done on the error screen after the attempt limit", ["expand", "buy", "card 4"] + Array(repeating: "confirm", count: 6) + ["done"],
                exit: 1, statuses: ["canceled"]),
        Leaving("change the amount after a decline, then pay", ["expand", "buy", "card 4", "confirm", "back", "select 3", "buy", "confirm", "done"],
                statuses: ["succeeded", "canceled"]),
    ]

    @Test(arguments: leavings)
    func leavingLeavesOnlyTheIntentsThatAreTheTruth(_ leaving: Leaving) throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(leaving.script, options: leaving.options)
        #expect(result.status == leaving.exitStatus, "\(result)")
        #expect(try cli.intents().compactMap { $0["status"]?.stringValue }.sorted() == leaving.statuses.sorted())
        let exit = try #require(try LineCheckoutHarness.events(result).last)
        #expect(exit["event"]?.stringValue == "exit")
        #expect(exit["exitStatus"]?.int64Value == Int64(leaving.exitStatus))
    }

    @Test(arguments: [("select 20", "20.00", true), ("select 5", "20.00", false)])
    func anUpdateArrivesAfterItsDelayAndKeepsTheSelectionWhenItStillExists(select: String, paid: String, kept: Bool) throws {
        let cli = try LineCheckoutHarness()
        let options = [
            "--notification", RepositoryPaths.fixture("notifications/payment-panel.json"),
            "--update", RepositoryPaths.fixture("notifications/payment-panel-update.json"), "--update-after", "5",
        ]
        let result = try cli.run(["expand", select, "wait 4", "show", "wait 1", "buy", "confirm", "done"], options: options)
        #expect(result.status == 0, "\(result)")
        let events = try LineCheckoutHarness.events(result)
        let names = events.compactMap { $0["event"]?.stringValue }
        // Not after 4 s, but after 5.
        let updateIndex = try #require(names.firstIndex(of: "panel_updated"))
        #expect(names[..<updateIndex].filter { $0 == "waited" }.count == 2)
        #expect(events[updateIndex]["selectionKept"]?.boolValue == kept)
        #expect(events[updateIndex]["selected"]?.stringValue == paid)
        let intent = try cli.intent(try #require(try LineCheckoutHarness.createdIntentIDs(result).first))
        #expect(intent["amount"]?.int64Value == (paid == "20.00" ? 2000 : 1000))
        #expect(intent["orderReference"]?.stringValue == "A1001")
    }

    @Test func anUpdateDeliveredByAnotherProcessReachesTheOpenPanel() throws {
        let cli = try LineCheckoutHarness()
        let checkout = try InteractiveCheckout(
            arguments: ["checkout", "--json", "--now", LineCheckoutHarness.now, "--notification", RepositoryPaths.fixture("notifications/payment-panel.json")],
            in: cli.directory)
        defer { checkout.stop() }
        checkout.send("expand")
        try checkout.waitForOutput(containing: "\"event\":\"panel\"")
        let schedule = try cli.paypanel([
            "notify", "schedule", "--payload", RepositoryPaths.fixture("notifications/payment-panel-update.json"), "--in", "0", "--now", LineCheckoutHarness.now,
        ])
        #expect(schedule.status == 0, "\(schedule)")
        let deliver = try cli.paypanel(["notify", "deliver", "--now", LineCheckoutHarness.now])
        #expect(deliver.status == 0, "\(deliver)")
        checkout.send("wait 0")
        try checkout.waitForOutput(containing: "\"event\":\"panel_updated\"")
        checkout.send("quit")
        #expect(try checkout.waitForExit() == 0)
        let events = try checkout.output.split(separator: "\n").map { try JSONParser().parse(String($0)) }
        let panel = try #require(events.last { $0["event"]?.stringValue == "panel" })
        #expect(panel["amounts"]?.arrayValue?.compactMap(\.stringValue) == ["10.00", "20.00", "50.00"])
    }

    @Test func aWrongCommandPrintsTheValidOnesAndTheSessionGoesOn() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "frobnicate", "confirm", "select 9", "buy", "quit"], json: false)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderrLines == [
            "error: 'frobnicate' is not a command",
            "  on the panel: select N|AMOUNT, buy, app, back, wait SECONDS, show, quit",
            "error: that does not work on the panel",
            "  on the panel: select N|AMOUNT, buy, app, back, wait SECONDS, show, quit",
            "error: \"9\" is neither a segment (1 to 3) nor an amount of the panel (5.00, 10.00 or 20.00 USD)",
            "  on the panel: select N|AMOUNT, buy, app, back, wait SECONDS, show, quit",
        ])
        #expect(result.stdout.contains("> frobnicate\n"))
        #expect(result.stdout.contains("[ Confirm with Side Button ]"))
        #expect(result.stdout.hasSuffix("Left the checkout; no payment was started.\n"))
    }

    @Test func aWrongCommandIsAnEventInJSON() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["pay", "quit"])
        let invalid = try #require(try LineCheckoutHarness.events(result).first { $0["event"]?.stringValue == "invalid_command" })
        #expect(invalid["screen"]?.stringValue == "banner")
        #expect(invalid["commands"]?.arrayValue?.first?.stringValue == "expand")
    }

    @Test func theTranscriptShowsEachScreenAfterItsCommand() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.run(["expand", "buy", "confirm", "done"], json: false)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.first == "test mode: tokens are signed by PayPanel's test root")
        #expect(lines.dropFirst().first == "┌──────────────────────────────────────────────────────────┐")
        #expect(lines.contains("> expand") && lines.contains("> buy") && lines.contains("> confirm"))
        #expect(lines.contains("Processing… Visa •••• 4242 · 5.00 USD (Apple Pay)"))
        #expect(lines.contains { $0.contains("✓ Done") })
        #expect(lines.last?.hasPrefix("Paid 5.00 USD: intent pi_") == true)
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [
        (["--update-after", "5"], "'--update-after' says when '--update <file>' arrives"),
        (["--capture", "later"], "'--capture' takes one of automatic, manual, not 'later'"),
        (["--width", "10"], "'--width' takes a whole number from 26 to 120"),
        (["--update", "u.json", "--update-after", "1e3"], "'--update-after' takes a number of seconds"),
    ])
    func badOptionsAreUsageErrors(options: [String], message: String) throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.paypanel(["checkout"] + options)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: \(message)"), "\(result.stderr)")
    }

    @Test func aNotificationWithoutAPanelIsRefused() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.paypanel(["checkout", "--notification", RepositoryPaths.fixture("notifications/reveal.json")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the notification has no panel"))
    }

    @Test func helpDescribesTheCommandsAndTheExitStatus() throws {
        let cli = try LineCheckoutHarness()
        let result = try cli.paypanel(["checkout", "--help"])
        #expect(result.status == 0)
        for text in ["--notification <file>", "--update-after <seconds>", "--capture <method>", "--processor-db <path>", "--lines", "Exit status"] {
            #expect(result.stdout.contains(text), "\(text)")
        }
    }
}

