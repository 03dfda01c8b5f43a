import Foundation
import PayPanel
import PayPanelDemo
import TestSupport
import Testing

/// The screens as text and JSON: sizes, focus, scrolling, and no card numbers anywhere.
@Suite @MainActor struct CheckoutScreenRendererTests {
    /// Drives a harness through `actions`, collecting the flow after each one.
    func snapshots(_ actions: [CheckoutAction], captureMethod: CaptureMethod = .automatic) async throws -> [CheckoutFlow] {
        let harness = try DeviceHarness(captureMethod: captureMethod)
        var flows = [harness.flow]
        for action in actions {
            await harness.send(action)
            flows.append(harness.flow)
        }
        return flows
    }

    /// Every screen, reached through real payments.
    func everyScreen() async throws -> [CheckoutFlow] {
        try await snapshots([.expand, .buyWithApplePay, .chooseCard(4), .confirm, .chooseCard(7), .confirm, .passChallenge])
            + snapshots([.expand, .payInApp, .enterCardNumber("4000000000000002"), .enterExpiry("12/29"), .enterHolder("Jane"), .confirm,
                         .enterCardNumber("4242424242424242"), .enterHolder("TIMEOUT"), .confirm], captureMethod: .manual)
            + snapshots([.expand, .payInApp, .chooseCard(1), .confirm], captureMethod: .manual)
    }

    @Test func everyScreenFitsAnEightyByTwentyFourTerminalWithItsHints() async throws {
        let flows = try await everyScreen()
        let screens = Set(flows.map(\.screen))
        #expect(screens.isSuperset(of: [.banner, .panel, .sheet, .challenge, .approved, .appForm, .unresolved]))
        for flow in flows {
            let lines = CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: DeviceHarness.start, showsFocus: true))
            #expect(lines.allSatisfy { DisplayWidth.of($0.text) == CheckoutRenderOptions.defaultWidth }, "\(flow.screen)")
            // Box, a blank line, the hints (at most two lines at 78 columns), a status line.
            #expect(lines.count + 1 + 2 + 1 <= 24, "\(flow.screen): \(lines.count) lines")
        }
    }

    @Test func noCardNumberAppearsOnAnyScreenOrInAnyEvent() async throws {
        let numbers = TestWallet.standard(now: DeviceHarness.start).cards.map(\.number.digits)
        for flow in try await everyScreen() {
            let text = CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: DeviceHarness.start)).map(\.text).joined()
            let json = JSONWriter.string(flow.screenEvent(at: DeviceHarness.start))
            for digits in numbers {
                #expect(!text.contains(digits), "\(flow.screen) shows \(digits.suffix(4))")
                #expect(!json.contains(digits), "\(flow.screen) event holds \(digits.suffix(4))")
            }
        }
    }

    @Test func theTypedNumberShowsOnlyInTheTerminalWhileItIsBeingTyped() throws {
        var flow = try CheckoutFlow(
            payload: PaymentActionPayloadBuilder().build(), configuration: CheckoutFlowConfiguration(wallet: .standard(now: DeviceHarness.start)))
        let now = DeviceHarness.start
        for key: DeviceKey in [.enter, .character("p"), .down] { _ = flow.handle(key: key, at: now) }
        for character in "4242424242424242" { _ = flow.handle(key: .character(character), at: now) }
        func text(_ showsFocus: Bool) -> String {
            CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: now, showsFocus: showsFocus)).map(\.text).joined(separator: "\n")
        }
        #expect(text(true).contains("4242 4242 4242 4242▏"))
        #expect(!text(false).contains("4242 4242"))
        #expect(text(false).contains("Visa •••• 4242"))
        _ = flow.handle(key: .tab, at: now)
        #expect(!text(true).contains("4242 4242"))
    }

    @Test func focusMarkersAppearOnlyInTheTerminal() throws {
        var flow = try CheckoutFlow(
            payload: PaymentActionPayloadBuilder().build(), configuration: CheckoutFlowConfiguration(wallet: .standard(now: DeviceHarness.start)))
        _ = flow.handle(.expand, at: DeviceHarness.start)
        _ = flow.handle(.buyWithApplePay, at: DeviceHarness.start)
        let terminal = CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: DeviceHarness.start, showsFocus: true))
        let plain = CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: DeviceHarness.start))
        #expect(terminal.contains { $0.style == .focused && $0.text.contains("▶ [ Confirm with Side Button ] ◀") })
        #expect(!plain.contains { $0.text.contains("▶") })
        #expect(plain.contains { $0.text.contains("● 1 Visa •••• 4242") })
    }

    @Test func aShortTerminalScrollsTheCardListAroundTheFocus() throws {
        var flow = try CheckoutFlow(
            payload: PaymentActionPayloadBuilder().build(), configuration: CheckoutFlowConfiguration(wallet: .standard(now: DeviceHarness.start)))
        let now = DeviceHarness.start
        _ = flow.handle(.expand, at: now)
        _ = flow.handle(.buyWithApplePay, at: now)
        for _ in 0..<8 { _ = flow.handle(key: .down, at: now) }  // to card 8
        let lines = CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: now, showsFocus: true, maximumHeight: 12))
        #expect(lines.count <= 12)
        #expect(lines.contains { $0.text.contains("of 9 (↑/↓ for more)") })
        #expect(lines.contains { $0.style == .focused && $0.text.contains("8 Visa •••• 5556") })
        #expect(!lines.contains { $0.text.contains("1 Visa •••• 4242") })
    }

    @Test func eachScreenEventNamesItsScreen() async throws {
        for flow in try await everyScreen() {
            let event = flow.screenEvent(at: DeviceHarness.start)
            #expect(event["event"]?.stringValue == flow.screen.rawValue)
        }
    }

    @Test func theApprovedScreenOfAManualCaptureSaysWhatToRunNext() async throws {
        let flows = try await snapshots([.expand, .payInApp, .chooseCard(1), .confirm], captureMethod: .manual)
        let flow = try #require(flows.last)
        let text = CheckoutScreenRenderer.render(flow, options: CheckoutRenderOptions(now: DeviceHarness.start)).map(\.text).joined(separator: "\n")
        let id = try #require(flow.intent?.id)
        #expect(text.contains("✓ Authorized"))
        #expect(text.contains("paypanel payments capture \(id)"))
        #expect(flow.screenEvent(at: DeviceHarness.start)["next"]?.stringValue == "paypanel payments capture \(id)")
    }
}
