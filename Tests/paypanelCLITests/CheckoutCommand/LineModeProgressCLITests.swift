import Foundation
import PayPanel
import TestSupport
import Testing

/// Line mode while a payment is in flight, and Ctrl-C in line mode: what a person at a
/// terminal sees with `checkout --lines`.
@Suite("checkout line mode: progress and Ctrl-C")
struct LineModeProgressCLITests {
    @Test("The slow card shows Processing… at once, long before its answer")
    func processingAppearsBeforeTheSlowCardsAnswer() throws {
        let cli = try LineCheckoutHarness()
        // Real time (no --now): the slow card keeps the sheet waiting for its 25 s deadline.
        let checkout = try InteractiveCheckout(arguments: ["checkout", "--lines"], in: cli.directory)
        defer { checkout.stop() }
        for line in ["expand", "buy", "card 8", "confirm"] { checkout.send(line) }
        try checkout.waitForOutput(containing: "Processing… Visa •••• 5556")
        // Seen while the processor still holds the answer: nothing of the result is out yet.
        #expect(!checkout.output.contains("Payment Not Completed") && !checkout.output.contains("outcome"), "\(checkout.output)")
        try checkout.waitForOutput(containing: "Payment Not Completed", timeout: 90)
        checkout.send("done")
        #expect(try checkout.waitForExit(timeout: 60) == 1)
    }

    @Test("Ctrl-C after a decline cancels the unpaid intent and prints the full screen's summary, exit 130")
    func controlCInLineModeLeavesLikeTheFullScreen() throws {
        let cli = try LineCheckoutHarness()
        let checkout = try InteractiveCheckout(arguments: ["checkout", "--lines", "--now", LineCheckoutHarness.now], in: cli.directory)
        defer { checkout.stop() }
        for line in ["expand", "buy", "card 4", "confirm"] { checkout.send(line) }
        try checkout.waitForOutput(containing: "• Declined: card_declined")
        checkout.interrupt()
        let status = try checkout.waitForExit()
        #expect(status == 130, "\(checkout.output.split(separator: "\n").suffix(8).joined(separator: "\n"))")
        let last = try #require(checkout.output.split(separator: "\n").last.map(String.init))
        let range = try #require(last.range(of: #"pi_[A-Za-z0-9]+"#, options: .regularExpression), "\(checkout.output)")
        #expect(last == "Left the checkout; intent \(last[range]) canceled.", "\(checkout.output)")
        #expect(try cli.intent(String(last[range]))["status"]?.stringValue == "canceled")
    }

    @Test("Ctrl-C at the banner in JSON line mode ends with the exit event of status 130")
    func controlCAtTheBannerInJSON() throws {
        let cli = try LineCheckoutHarness()
        let checkout = try InteractiveCheckout(arguments: ["checkout", "--json", "--now", LineCheckoutHarness.now], in: cli.directory)
        defer { checkout.stop() }
        try checkout.waitForOutput(containing: "\"event\":\"banner\"")
        checkout.interrupt()
        #expect(try checkout.waitForExit() == 130)
        let exit = try JSONParser().parse(String(try #require(checkout.output.split(separator: "\n").last)))
        #expect(exit["event"] == "exit" && exit["reason"] == "quit" && exit["exitStatus"]?.int64Value == 130, "\(exit)")
    }
}
