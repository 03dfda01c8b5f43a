/// A notification category and the actions it offers, as registered with
/// `UNUserNotificationCenter.setNotificationCategories`.
package struct NotificationCategory: Sendable, Equatable {
    package let identifier: String
    package let actions: [NotificationAction]

    package init(identifier: String, actions: [NotificationAction]) {
        self.identifier = identifier
        self.actions = actions
    }

    /// The payment panel: Buy with Apple Pay, or Pay in app.
    package static let paymentAction = NotificationCategory(
        identifier: PushPayloadReader.paymentActionCategory,
        actions: [
            NotificationAction(identifier: PanelButton.buyWithApplePay.rawValue, title: PanelButton.buyWithApplePay.title),
            NotificationAction(identifier: PanelButton.payInApp.rawValue, title: PanelButton.payInApp.title, opensApp: true),
        ])

    /// A notification whose body is hidden until the user asks: Show me.
    package static let reveal = NotificationCategory(
        identifier: "REVEAL",
        actions: [NotificationAction(identifier: NotificationAction.showMe, title: "Show me")])

    /// Every category PayPanel registers.
    package static let all: [NotificationCategory] = [.paymentAction, .reveal]

    /// The registered category named `identifier`, or nil.
    package static func named(_ identifier: String) -> NotificationCategory? {
        all.first { $0.identifier == identifier }
    }

    /// This category's action named `identifier`, or nil.
    package func action(named identifier: String) -> NotificationAction? {
        actions.first { $0.identifier == identifier }
    }

    /// "buy-apple-pay or pay-in-app", for messages.
    package var actionList: String {
        let names = actions.map(\.identifier)
        return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1] : names.first ?? "none"
    }
}

/// One button a category puts under its notifications.
package struct NotificationAction: Sendable, Equatable {
    package let identifier: String
    package let title: String
    /// Brings the app to the foreground (Pay in app) rather than acting in place.
    package let opensApp: Bool

    package init(identifier: String, title: String, opensApp: Bool = false) {
        self.identifier = identifier
        self.title = title
        self.opensApp = opensApp
    }

    /// The REVEAL category's action: re-deliver the notification with its body shown.
    package static let showMe = "show-me"
}
