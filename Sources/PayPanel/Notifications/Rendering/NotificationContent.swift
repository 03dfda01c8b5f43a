/// The text a notification shows: what a banner and the top of the expanded panel display.
package struct NotificationContent: Sendable, Equatable, JSONRepresentable {
    package var title: String?
    package var subtitle: String?
    package var body: String?

    package init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    /// The alert of `aps`: title, subtitle and body, or the localization keys when the text is
    /// left to the app (shown as the key, since only the app has the strings).
    package init(aps: APS) {
        let alert = aps.alert
        title = alert?.title ?? alert?.titleLocKey
        subtitle = alert?.subtitle ?? alert?.subtitleLocKey
        body = alert?.body ?? alert?.locKey
    }

    package var json: JSONValue {
        ["title": .optional(title), "subtitle": .optional(subtitle), "body": .optional(body)]
    }
}

/// One line of a rendered banner or panel, with what it shows, so a terminal can style it
/// (bold title, highlighted focus) while plain output just prints `text`.
package struct RenderedLine: Sendable, Equatable {
    package var text: String
    package var role: LineRole

    package init(_ text: String, role: LineRole) {
        self.text = text
        self.role = role
    }
}

/// What a rendered line shows.
package enum LineRole: Sendable, Equatable {
    /// Box-drawing border.
    case frame
    case title
    case subtitle
    case body
    /// Product, total and other panel details.
    case detail
    /// The segmented amount control.
    case amounts
    /// A button; `focused` when keyboard focus is on it.
    case button(PanelButton, focused: Bool)
    /// An update or expiry notice.
    case notice
    case blank
}

/// The expanded panel's two buttons and the notification actions they send.
package enum PanelButton: String, Sendable, CaseIterable {
    case buyWithApplePay = "buy-apple-pay"
    case payInApp = "pay-in-app"

    /// The label shown on the button.
    package var title: String {
        switch self {
        case .buyWithApplePay: "Buy with Apple Pay"
        case .payInApp: "Pay in app"
        }
    }
}

extension Array where Element == RenderedLine {
    /// The lines as plain text, one per line, each ending with a newline.
    package var plainText: String {
        map { $0.text + "\n" }.joined()
    }
}

/// Layout settings shared by the banner and the panel.
package struct RenderOptions: Sendable, Equatable {
    /// Total width in columns, borders included; clamped to at least `minimumWidth`.
    package var width: Int
    /// A compact banner: two body lines instead of four.
    package var compact: Bool

    package init(width: Int = RenderOptions.defaultWidth, compact: Bool = false) {
        self.width = max(width, RenderOptions.minimumWidth)
        self.compact = compact
    }

    /// About a phone banner's width in a terminal.
    package static let defaultWidth = 44
    /// Narrower than this, a button label no longer fits.
    package static let minimumWidth = 26
    /// Body lines in a banner (iOS shows up to four).
    package static let bannerBodyLines = 4
    /// Body lines in a compact banner.
    package static let compactBannerBodyLines = 2

    /// Columns between the borders and their padding.
    package var innerWidth: Int { width - 4 }
}

/// Draws the box around rendered content.
package enum Frame {
    package static func top(_ options: RenderOptions) -> RenderedLine {
        RenderedLine("┌" + String(repeating: "─", count: options.width - 2) + "┐", role: .frame)
    }

    package static func divider(_ options: RenderOptions) -> RenderedLine {
        RenderedLine("├" + String(repeating: "─", count: options.width - 2) + "┤", role: .frame)
    }

    package static func bottom(_ options: RenderOptions) -> RenderedLine {
        RenderedLine("└" + String(repeating: "─", count: options.width - 2) + "┘", role: .frame)
    }

    /// `│ text │` with `text` (already at most `innerWidth` columns) padded.
    package static func row(_ text: String, role: LineRole, _ options: RenderOptions) -> RenderedLine {
        RenderedLine("│ " + text.truncated(toColumns: options.innerWidth).padded(toColumns: options.innerWidth) + " │", role: role)
    }

    /// `text` centred in the inner width.
    package static func centred(_ text: String, role: LineRole, _ options: RenderOptions) -> RenderedLine {
        let free = max(options.innerWidth - DisplayWidth.of(text), 0)
        return row(String(repeating: " ", count: free / 2) + text, role: role, options)
    }
}
