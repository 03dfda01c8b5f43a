import Foundation

/// An open expanded payment panel: the notification's text, its panel and the user's amount
/// selection. A second notification for the same panel (same thread-id or order reference)
/// replaces the content in place, as `didReceive(_:)` does in a notification content
/// extension, keeping the selected amount when it is still offered.
///
/// A value type: the checkout owns one and re-renders it with `NotificationRenderer`.
package struct NotificationPanelState: Sendable, Equatable {
    package private(set) var content: NotificationContent
    package private(set) var panel: PanelConfig
    /// The segmented control; the checkout moves the selection through it.
    package var selector: AmountSelector
    package private(set) var threadID: String?
    /// How many updates were applied.
    package private(set) var updateCount = 0
    /// The last update applied, for the "Updated" notice.
    package private(set) var lastUpdate: PanelUpdate?

    /// The panel of a payment-action notification. Fails when the payload has no panel.
    package init(payload: PushPayload) throws(PanelError) {
        guard let panel = payload.panel else {
            throw PanelError("the notification has no panel: only \(PushPayloadReader.paymentActionCategory) payloads with a panel key can be expanded")
        }
        self.content = NotificationContent(aps: payload.aps)
        self.panel = panel
        self.selector = try panel.makeSelector()
        self.threadID = payload.aps.threadID
    }

    /// True when `payload` is about this panel: the same thread-id, or the same order reference.
    package func matches(_ payload: PushPayload) -> Bool {
        if let threadID, threadID == payload.aps.threadID { return true }
        if let reference = panel.orderReference, reference == payload.panel?.orderReference { return true }
        return false
    }

    /// True when the panel has an expiry and `now` is at or after it.
    package func isExpired(at now: Date) -> Bool {
        guard let expiresAt = panel.expiresAt else { return false }
        return now >= expiresAt
    }

    /// Applies a second notification. The text is replaced; a panel in the update replaces the
    /// amounts (the selection is kept when its amount is still offered, otherwise the update's
    /// default segment is selected). An update for another panel, or from another merchant for
    /// the same order, changes nothing.
    package mutating func apply(_ payload: PushPayload) -> PanelUpdateOutcome {
        guard matches(payload) else {
            return .notForThisPanel("thread-id \(payload.aps.threadID ?? "none") and order \(payload.panel?.orderReference ?? "none") do not match this panel (thread-id \(threadID ?? "none"), order \(panel.orderReference ?? "none"))")
        }
        let previousSelection = selector.selected
        let previousContent = content
        var newPanel = panel
        var newSelector = selector
        if let update = payload.panel {
            guard update.merchantIdentifier == panel.merchantIdentifier else {
                return .rejected("the update is for merchant \(update.merchantIdentifier), but this panel pays \(panel.merchantIdentifier); ignored")
            }
            let amounts = update.amountOptions.map { Amount(minorUnits: $0, currency: update.currency) }
            do {
                try newSelector.replaceOptions(amounts, defaultSegment: update.defaultSegment)
            } catch {
                return .rejected("the update's amounts cannot be shown: \(error.message)")
            }
            newPanel = update
        }
        let newContent = NotificationContent(aps: payload.aps)
        let amountsChanged = newPanel.amountOptions != panel.amountOptions || newPanel.currency != panel.currency
        let selectionKept = newSelector.selected == previousSelection
        content = newContent
        panel = newPanel
        selector = newSelector
        if let newThread = payload.aps.threadID { threadID = newThread }
        updateCount += 1
        let update = PanelUpdate(
            number: updateCount, contentChanged: newContent != previousContent, amountsChanged: amountsChanged,
            previousSelection: previousSelection, selection: newSelector.selected, selectionKept: selectionKept,
            optionList: newSelector.optionList)
        lastUpdate = update
        return .applied(update)
    }
}

/// What one applied update changed.
package struct PanelUpdate: Sendable, Equatable {
    /// 1 for the first update of the panel.
    package let number: Int
    package let contentChanged: Bool
    package let amountsChanged: Bool
    package let previousSelection: Amount
    package let selection: Amount
    /// True when the user's selected amount is still selected.
    package let selectionKept: Bool
    /// The amounts now offered, "10.00, 20.00 or 50.00 USD".
    package let optionList: String

    /// One sentence for the panel's notice line.
    package var summary: String {
        var parts: [String] = []
        if amountsChanged { parts.append("amounts are now \(optionList)") }
        if contentChanged { parts.append("new text") }
        if parts.isEmpty { parts.append("nothing changed") }
        let selectionText = selectionKept
            ? "your selection \(selection.decimalString) is kept"
            : "\(previousSelection.decimalString) is no longer offered, \(selection.decimalString) is selected"
        return parts.joined(separator: ", ") + "; " + selectionText + "."
    }
}

/// The result of offering a notification to an open panel.
package enum PanelUpdateOutcome: Sendable, Equatable {
    case applied(PanelUpdate)
    /// Another panel's notification: shown as its own banner, not applied.
    case notForThisPanel(String)
    /// Same panel, but the update cannot be applied (another merchant, bad amounts).
    case rejected(String)
}
