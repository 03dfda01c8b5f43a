import Foundation

/// Lays out a notification as a device shows it, as lines of text: the banner (title and
/// subtitle on one line each, the body cut to four lines, two when compact, ending with "…")
/// and the expanded payment panel (the full text, the segmented amounts with the selection,
/// and the two buttons). Widths are display columns, so CJK and emoji text lines up.
///
/// The library only lays out; the CLI prints the lines and the checkout styles them by role.
package enum NotificationRenderer {
    /// The banner for `content`.
    package static func banner(_ content: NotificationContent, options: RenderOptions = RenderOptions()) -> [RenderedLine] {
        var lines = [Frame.top(options)]
        lines += textLines(content, options: options,
                           bodyLines: options.compact ? RenderOptions.compactBannerBodyLines : RenderOptions.bannerBodyLines)
        lines.append(Frame.bottom(options))
        return lines
    }

    /// The expanded panel for `state`. `focus` marks the button that has keyboard focus;
    /// with `now` past the panel's expiry the buttons are replaced by an expiry notice.
    package static func expandedPanel(
        _ state: NotificationPanelState, options: RenderOptions = RenderOptions(), focus: PanelButton? = nil,
        now: Date? = nil
    ) -> [RenderedLine] {
        var lines = [Frame.top(options)]
        lines += textLines(state.content, options: options, bodyLines: nil)
        lines.append(Frame.divider(options))
        let panel = state.panel
        let currency = panel.currency.code
        lines.append(Frame.row("\(panel.productLabel.sanitizedForTerminal()) · \(currency)", role: .detail, options))
        for row in segmentRows(state.selector, innerWidth: options.innerWidth) {
            lines.append(Frame.row(row, role: .amounts, options))
        }
        let payee = panel.merchantName.map { "Pay \($0.sanitizedForTerminal())" } ?? "Total"
        lines.append(Frame.row(spread(payee, state.selector.selected.description, width: options.innerWidth),
                               role: .detail, options))
        if let update = state.lastUpdate {
            for line in TextWrapper.wrap("Updated: \(update.summary)", width: options.innerWidth).lines {
                lines.append(Frame.row(line, role: .notice, options))
            }
        }
        lines.append(Frame.row("", role: .blank, options))
        if let now, state.isExpired(at: now), let expiry = panel.expiresAt {
            for line in TextWrapper.wrap("This offer expired at \(Timestamp.format(expiry)); payment is no longer offered.",
                                         width: options.innerWidth).lines {
                lines.append(Frame.row(line, role: .notice, options))
            }
        } else {
            for button in PanelButton.allCases {
                let focused = button == focus
                let label = focused ? "▶ [ \(button.title) ] ◀" : "[ \(button.title) ]"
                lines.append(Frame.centred(label, role: .button(button, focused: focused), options))
            }
        }
        lines.append(Frame.bottom(options))
        return lines
    }

    /// Title, subtitle (one line each) and body (wrapped, cut to `bodyLines` when given).
    private static func textLines(_ content: NotificationContent, options: RenderOptions, bodyLines: Int?) -> [RenderedLine] {
        var lines: [RenderedLine] = []
        if let title = content.title?.sanitizedForTerminal().trimmingWhitespace(), !title.isEmpty {
            lines.append(Frame.row(title, role: .title, options))
        }
        if let subtitle = content.subtitle?.sanitizedForTerminal().trimmingWhitespace(), !subtitle.isEmpty {
            lines.append(Frame.row(subtitle, role: .subtitle, options))
        }
        if let body = content.body, !body.trimmingWhitespace().isEmpty {
            let wrapped = TextWrapper.wrap(body, width: options.innerWidth, maximumLines: bodyLines)
            lines += wrapped.lines.map { Frame.row($0, role: .body, options) }
        }
        if lines.isEmpty { lines.append(Frame.row("(no text)", role: .notice, options)) }
        return lines
    }

    /// The segmented control: every amount in a cell of the same width, the selected one in
    /// brackets (`[ 10.00 ]`) so the selection shows without colour. Cells that do not fit on
    /// one row continue on the next. Public so a terminal can draw the control on its own.
    package static func segmentRows(_ selector: AmountSelector, innerWidth: Int) -> [String] {
        let labels = selector.options.map(\.decimalString)
        let labelWidth = labels.map { DisplayWidth.of($0) }.max() ?? 0
        let cellWidth = labelWidth + 4
        var rows: [String] = []
        var row = ""
        for (index, label) in labels.enumerated() {
            // Right-aligned, as amounts are: the decimal points line up.
            let inner = String(repeating: " ", count: labelWidth - DisplayWidth.of(label)) + label
            let cell = index == selector.selectedIndex ? "[ \(inner) ]" : "  \(inner)  "
            if !row.isEmpty, DisplayWidth.of(row) + 1 + cellWidth > innerWidth {
                rows.append(row)
                row = ""
            }
            row += row.isEmpty ? cell : " " + cell
        }
        if !row.isEmpty { rows.append(row) }
        return rows
    }

    /// `left` and `right` at the two ends of a `width`-column line.
    private static func spread(_ left: String, _ right: String, width: Int) -> String {
        let rightWidth = DisplayWidth.of(right)
        let leftText = left.truncated(toColumns: max(width - rightWidth - 1, 1))
        return leftText.padded(toColumns: width - rightWidth) + right
    }
}
