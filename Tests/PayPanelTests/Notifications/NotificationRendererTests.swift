import Foundation
import PayPanel
import Testing

@Suite struct NotificationRendererTests {
    private let longBody = "Choose 5.00, 10.00 or 20.00 USD and pay with Apple Pay without leaving the notification, then get a receipt right away."

    @Test func theBannerCutsTheBodyToFourLinesWithAnEllipsis() {
        let content = NotificationContent(title: "Some Product", subtitle: "Order A1001", body: longBody + " " + longBody)
        let lines = NotificationRenderer.banner(content, options: RenderOptions(width: 30))
        let body = lines.filter { $0.role == .body }
        #expect(body.count == 4)
        #expect(body.last?.text.contains("…") == true)
        #expect(lines.first { $0.role == .title }?.text == "│ Some Product               │")
        #expect(lines.first { $0.role == .subtitle }?.text == "│ Order A1001                │")
    }

    @Test func theCompactBannerShowsTwoBodyLines() {
        let lines = NotificationRenderer.banner(NotificationContent(title: "T", body: longBody), options: RenderOptions(width: 30, compact: true))
        let body = lines.filter { $0.role == .body }.map(\.text)
        #expect(body == ["│ Choose 5.00, 10.00 or      │", "│ 20.00 USD and pay with…    │"])
    }

    @Test func aShortBodyIsNotCut() {
        let lines = NotificationRenderer.banner(NotificationContent(title: "T", body: "Pay now."))
        #expect(lines.filter { $0.role == .body }.map(\.text) == ["│ " + "Pay now.".padded(toColumns: 40) + " │"])
        #expect(!lines.plainText.contains("…"))
    }

    /// Every line of a banner has the same display width, whatever the script: the frame lines up.
    @Test(arguments: [
        NotificationContent(title: "支付成功", subtitle: "订单 A1001", body: "请选择金额：5.00、10.00 或 20.00 美元，然后使用 Apple Pay 付款。谢谢您的惠顾！"),
        NotificationContent(title: "🎉 Offer 🎉", subtitle: "Famille 👨‍👩‍👧 🇫🇷", body: "Déjà payé ? Café\u{301} offert ❤️ 1️⃣ 2️⃣ 3️⃣ 한국어 텍스트도 됩니다"),
        NotificationContent(title: String(repeating: "W", count: 80), body: String(repeating: "ｗｉｄｅ ", count: 30)),
    ])
    func framesLineUpWithWideAndCombiningCharacters(content: NotificationContent) {
        for width in [26, 31, 44, 60] {
            for compact in [false, true] {
                let lines = NotificationRenderer.banner(content, options: RenderOptions(width: width, compact: compact))
                #expect(lines.allSatisfy { DisplayWidth.of($0.text) == width }, "\(lines.map(\.text))")
                #expect(lines.filter { $0.role == .body }.count <= (compact ? 2 : 4))
            }
        }
    }

    @Test func escapeSequencesInTheTextNeverReachTheTerminal() {
        let content = NotificationContent(title: "Pay\u{1B}]0;owned\u{07}", subtitle: "\u{1B}[2J", body: "a\u{9B}31mb")
        let text = NotificationRenderer.banner(content).plainText
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
    }

    @Test func theExpandedPanelShowsTextAmountsAndBothButtons() throws {
        let state = try NotificationPanelState(payload: NotificationFixtures.payload("payment-panel.json"))
        let lines = NotificationRenderer.expandedPanel(state, options: RenderOptions(width: 44))
        #expect(lines.filter { $0.role == .body }.count == 3)  // the full body, not cut
        #expect(lines.filter { $0.role == .amounts }.map(\.text) == ["│ [  5.00 ]   10.00     20.00  " + String(repeating: " ", count: 11) + " │"])
        #expect(lines.contains { $0.text.contains("Pay Sample Shop") && $0.text.contains("5.00 USD") })
        let buttons = lines.compactMap { line -> PanelButton? in
            if case .button(let button, _) = line.role { return button }
            return nil
        }
        #expect(buttons == [.buyWithApplePay, .payInApp])
        #expect(lines.contains { $0.text.contains("[ Buy with Apple Pay ]") })
        #expect(lines.contains { $0.text.contains("[ Pay in app ]") })
        #expect(lines.allSatisfy { DisplayWidth.of($0.text) == 44 })
    }

    @Test func theFocusedButtonIsMarkedWithoutColour() throws {
        let state = try NotificationPanelState(payload: NotificationFixtures.payload("payment-panel.json"))
        let lines = NotificationRenderer.expandedPanel(state, focus: .payInApp)
        #expect(lines.contains { $0.role == .button(.payInApp, focused: true) && $0.text.contains("▶ [ Pay in app ] ◀") })
        #expect(lines.contains { $0.role == .button(.buyWithApplePay, focused: false) && !$0.text.contains("▶") })
    }

    @Test func theSelectionMovesTheBrackets() throws {
        var state = try NotificationPanelState(payload: NotificationFixtures.payload("payment-panel.json"))
        try state.selector.select(segment: 3)
        let amounts = NotificationRenderer.expandedPanel(state).filter { $0.role == .amounts }.map(\.text)
        #expect(amounts == ["│    5.00     10.00   [ 20.00 ]" + String(repeating: " ", count: 11) + " │"])
    }

    @Test func manySegmentsWrapOntoSeveralRows() throws {
        let selector = try AmountSelector(options: [100_000, 250_000, 500_000, 750_000, 999_999].map { Amount(minorUnits: $0, currency: try Currency(code: "USD")) })
        let rows = NotificationRenderer.segmentRows(selector, innerWidth: 30)
        #expect(rows.count > 1)
        #expect(rows.allSatisfy { DisplayWidth.of($0) <= 30 })
        #expect(rows.joined().contains("[ 1000.00 ]"))
    }

    @Test func anExpiredPanelOffersNoButtons() throws {
        let state = try NotificationPanelState(payload: NotificationFixtures.payload("payment-panel.json"))
        let expired = NotificationRenderer.expandedPanel(state, now: try Timestamp.parse("2027-01-01T00:00:00Z"))
        #expect(!expired.contains { if case .button = $0.role { true } else { false } })
        #expect(expired.contains { $0.role == .notice && $0.text.contains("expired") })
        let open = NotificationRenderer.expandedPanel(state, now: try Timestamp.parse("2026-12-01T00:00:00Z"))
        #expect(open.contains { if case .button = $0.role { true } else { false } })
    }
}
