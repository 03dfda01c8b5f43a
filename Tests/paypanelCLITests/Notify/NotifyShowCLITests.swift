import Foundation
import Testing
import TestSupport

@Suite struct NotifyShowCLITests {
    /// Display columns of a line (the CLI test target does not link the library's helper:
    /// this counts the few wide ranges the test text uses).
    private func columns(_ line: String) -> Int {
        line.reduce(0) { total, character in
            let scalar = character.unicodeScalars.first!.value
            let wide = (0x4E00...0x9FFF).contains(scalar) || (0x3000...0x30FF).contains(scalar) || (0xFF00...0xFF60).contains(scalar) || (0x1F300...0x1FAFF).contains(scalar)
            return total + (wide ? 2 : 1)
        }
    }

    @Test func theBannerShowsTitleSubtitleAndBody() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("payment-panel.json"), "--width", "44"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == [
            "┌──────────────────────────────────────────┐",
            "│ Some Product                             │",
            "│ Order A1001                              │",
            "│ Choose 5.00, 10.00 or 20.00 USD and pay  │",
            "│ with Apple Pay without leaving the       │",
            "│ notification.                            │",
            "└──────────────────────────────────────────┘",
        ])
    }

    @Test func aLongBodyIsCutToFourLinesOrTwoWhenCompact() throws {
        let directory = try TemporaryDirectory()
        let body = String(repeating: "Pay for your order from the notification. ", count: 8)
        let payload = try directory.write("long.json", #"{"aps": {"alert": {"title": "T", "body": "\#(body)"}}}"#)
        let full = try CLIRunner.run(["notify", "show", payload, "--width", "30"], in: directory)
        #expect(full.stdoutLines.count == 1 + 1 + 4 + 1)
        #expect(full.stdoutLines[5].contains("…"))
        let compact = try CLIRunner.run(["notify", "show", payload, "--width", "30", "--compact"], in: directory)
        #expect(compact.stdoutLines.count == 1 + 1 + 2 + 1)
        #expect(compact.stdoutLines[3].contains("…"))
    }

    @Test func wideCharactersKeepTheFrameAligned() throws {
        let directory = try TemporaryDirectory()
        let payload = try directory.write("cjk.json", #"{"aps": {"alert": {"title": "支付成功 🎉", "body": "请选择金额：五元、十元或二十元，然后使用 Apple Pay 付款。谢谢惠顾！"}}}"#)
        let result = try CLIRunner.run(["notify", "show", payload, "--width", "30"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines.allSatisfy { columns($0) == 30 }, "\(result.stdout)")
    }

    @Test func theExpandedPanelShowsAmountsAndButtons() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("payment-panel.json"), "--expanded", "--now", "2026-11-29T12:00:00Z"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("│ [  5.00 ]   10.00     20.00 "))
        #expect(result.stdout.contains("[ Buy with Apple Pay ]"))
        #expect(result.stdout.contains("[ Pay in app ]"))
    }

    @Test func anUpdateKeepsTheSelectionWhenTheAmountStillExists() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("payment-panel.json"), "--expanded", "--select", "2",
                                        "--update", NotifyCLI.fixture("payment-panel-update.json"), "--json", "--now", "2026-11-29T12:00:00Z"], in: directory)
        #expect(result.status == 0, "\(result)")
        let view = try NotifyCLI.object(result)
        #expect(view["selectedAmount"] as? String == "10.00 USD")
        #expect((view["updates"] as? [String])?.first?.hasSuffix("your selection 10.00 is kept.") == true)
        #expect((view["lines"] as? [String])?.contains { $0.contains("[ 10.00 ]") && $0.contains("50.00") } == true)
    }

    @Test func anUpdateFallsBackToItsDefaultWhenTheAmountIsGone() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("payment-panel.json"), "--expanded", "--select", "1",
                                        "--update", NotifyCLI.fixture("payment-panel-update.json"), "--json", "--now", "2026-11-29T12:00:00Z"], in: directory)
        #expect(try NotifyCLI.object(result)["selectedAmount"] as? String == "20.00 USD")
    }

    @Test func anUpdateForAnotherPanelIsRefused() throws {
        let directory = try TemporaryDirectory()
        let other = try CLIRunner.run(["notify", "build", "--order", "B2"], in: directory)
        let otherFile = try directory.write("other.json", other.stdout)
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("payment-panel.json"), "--expanded", "--update", otherFile], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: the update \(otherFile) was not applied: thread-id order-B2 and order B2 do not match this panel"))
    }

    @Test(arguments: [
        (["--expanded", "--compact"], "'--compact' applies to the banner"),
        (["--width", "10"], "'--width' takes a whole number from 26 to 200, not '10'"),
        (["--select", "2"], "add '--expanded'"),
    ])
    func badCombinationsAreUsageErrors(options: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("payment-panel.json")] + options, in: directory)
        #expect(result.status == 64)
        #expect(result.stderrLines.first?.contains(message) == true, "\(result)")
        #expect(result.stderrLines.dropFirst().first?.hasPrefix("Usage: paypanel notify show") == true)
    }

    @Test func aBannerForAnInvalidPayloadIsRefused() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "show", NotifyCLI.fixture("oversized.json")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderrLines.last?.hasPrefix("Error: the notification payload") == true)
    }
}
