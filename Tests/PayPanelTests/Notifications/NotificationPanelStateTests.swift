import PayPanel
import Testing

@Suite struct NotificationPanelStateTests {
    private func panel(_ name: String = "payment-panel.json") throws -> NotificationPanelState {
        try NotificationPanelState(payload: NotificationFixtures.payload(name))
    }

    private func payload(thread: String?, order: String?, amounts: [Int64], defaultSegment: Int = 1,
                         merchant: String = "merchant.com.sample.ApplePayAction", title: String = "Updated") throws -> PushPayload {
        var config = PanelConfig.seed
        config.merchantIdentifier = merchant
        config.orderReference = order
        config.amountOptions = amounts
        config.defaultSegment = defaultSegment
        var built = try PaymentActionPayloadBuilder(panel: config, title: title).build()
        built.aps.threadID = thread
        return built
    }

    @Test func theDefaultSegmentIsSelectedWhenThePanelOpens() throws {
        let state = try panel()
        #expect(state.selector.selectedSegment == 1)
        #expect(state.selector.selected.minorUnits == 500)
        #expect(state.threadID == "order-A1001")
    }

    @Test func anUpdateKeepsTheSelectedAmountWhenItIsStillOffered() throws {
        var state = try panel()
        try state.selector.select(segment: 2)  // 10.00
        let outcome = state.apply(try NotificationFixtures.payload("payment-panel-update.json"))  // 10 / 20 / 50, default 2
        guard case .applied(let update) = outcome else {
            Issue.record("expected applied, got \(outcome)")
            return
        }
        #expect(update.selectionKept)
        #expect(update.amountsChanged)
        #expect(state.selector.selected.minorUnits == 1000)
        #expect(state.selector.selectedSegment == 1)  // same amount, now the first segment
        #expect(state.selector.options.map(\.minorUnits) == [1000, 2000, 5000])
        #expect(state.content.subtitle == "Order A1001 · updated")
        #expect(state.updateCount == 1)
        #expect(update.summary == "amounts are now 10.00, 20.00 or 50.00 USD, new text; your selection 10.00 is kept.")
    }

    @Test func anUpdateFallsBackToItsDefaultWhenTheSelectedAmountIsGone() throws {
        var state = try panel()  // 5.00 selected
        guard case .applied(let update) = state.apply(try NotificationFixtures.payload("payment-panel-update.json")) else {
            Issue.record("expected applied")
            return
        }
        #expect(!update.selectionKept)
        #expect(state.selector.selected.minorUnits == 2000)  // the update's default segment 2
        #expect(update.summary.hasSuffix("5.00 is no longer offered, 20.00 is selected."))
    }

    @Test func theSameOrderMatchesEvenWithAnotherThread() throws {
        var state = try panel()
        let update = try payload(thread: "something-else", order: "A1001", amounts: [500, 1000])
        #expect(state.matches(update))
        guard case .applied = state.apply(update) else {
            Issue.record("expected applied")
            return
        }
        #expect(state.content.title == "Updated")
    }

    @Test func theSameThreadMatchesWithoutAnOrder() throws {
        var state = try panel()
        guard case .applied = state.apply(try payload(thread: "order-A1001", order: nil, amounts: [500])) else {
            Issue.record("expected applied")
            return
        }
        #expect(state.selector.options.count == 1)
    }

    @Test func anotherPanelsNotificationChangesNothing() throws {
        var state = try panel()
        let before = state
        let outcome = state.apply(try payload(thread: "order-B2", order: "B2", amounts: [100]))
        guard case .notForThisPanel(let reason) = outcome else {
            Issue.record("expected notForThisPanel, got \(outcome)")
            return
        }
        #expect(reason.contains("do not match"))
        #expect(state == before)
    }

    @Test func anUpdateFromAnotherMerchantForTheSameOrderIsRejected() throws {
        var state = try panel()
        let before = state
        let outcome = state.apply(try payload(thread: "order-A1001", order: "A1001", amounts: [100], merchant: "merchant.com.evil.shop"))
        guard case .rejected(let reason) = outcome else {
            Issue.record("expected rejected, got \(outcome)")
            return
        }
        #expect(reason.contains("merchant.com.evil.shop"))
        #expect(state == before)
    }

    @Test func aTextOnlyUpdateKeepsThePanel() throws {
        var state = try panel()
        try state.selector.select(segment: 3)
        let textOnly = PushPayloadReader.read(json: ["aps": ["alert": ["title": "Still available", "body": "Hurry"], "thread-id": "order-A1001"]]).payload!
        guard case .applied(let update) = state.apply(textOnly) else {
            Issue.record("expected applied")
            return
        }
        #expect(!update.amountsChanged)
        #expect(update.selectionKept)
        #expect(state.selector.selected.minorUnits == 2000)
        #expect(state.content == NotificationContent(title: "Still available", body: "Hurry"))
    }

    @Test func aPayloadWithoutAPanelCannotBeExpanded() throws {
        #expect(throws: PanelError.self) { try NotificationPanelState(payload: NotificationFixtures.payload("reveal.json")) }
    }
}
