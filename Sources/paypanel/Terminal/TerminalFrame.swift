import PayPanel
import PayPanelDemo

/// Composes one frame of the interactive checkout — the screen's box centred in the
/// terminal, the key hints under it, a status line for messages — as a single string with
/// cursor moves, so the frame goes out in one write and the screen never shows half of it.
/// Unchanged frames are not written again; a resize forces a full redraw.
struct TerminalFrame {
    /// Styles with ANSI colours, or none (`NO_COLOR`, or a terminal that should not get them).
    let usesColor: Bool

    /// The frame for `lines` (the box), `hints` and the `footer` (messages, the backend's
    /// log) on a `columns`×`rows` terminal.
    func compose(box lines: [ScreenLine], hints: [String], footer: [ScreenLine], header: String? = nil, columns: Int, rows: Int) -> String {
        var content: [(line: ScreenLine, centred: Bool)] = lines.map { ($0, true) }
        content.append((ScreenLine("", style: .blank), false))
        for hint in Self.wrapHints(hints, width: max(columns - 2, 10)) {
            content.append((ScreenLine(hint, style: .muted), false))
        }
        if !footer.isEmpty { content.append((ScreenLine("", style: .blank), false)) }
        content += footer.map { ($0, false) }
        let boxWidth = lines.map { DisplayWidth.of($0.text) }.max() ?? 0
        let top = content.count + 1 < rows ? 1 : 0
        var frame = ""
        for (offset, entry) in content.prefix(max(rows - top, 1)).enumerated() {
            let width = DisplayWidth.of(entry.line.text)
            let reference = entry.centred ? boxWidth : width
            let margin = max((columns - reference) / 2, 0)
            let text = entry.line.text.truncated(toColumns: max(columns - margin, 1))
            frame += "\u{1B}[\(top + offset + 1);1H" + String(repeating: " ", count: margin) + styled(text, entry.line.style) + "\u{1B}[K"
        }
        // Clear whatever an earlier, taller frame left below.
        frame += "\u{1B}[J"
        if top == 1 {
            // The first row: the header when there is one, centred and quiet.
            let text = (header ?? "").truncated(toColumns: max(columns, 1))
            let margin = String(repeating: " ", count: max((columns - DisplayWidth.of(text)) / 2, 0))
            frame = "\u{1B}[1;1H" + (text.isEmpty ? "" : margin + styled(text, .muted)) + "\u{1B}[K" + frame
        }
        return frame
    }

    /// Hints joined with " · ", broken into lines that fit `width`.
    static func wrapHints(_ hints: [String], width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for hint in hints {
            let candidate = current.isEmpty ? hint : current + " · " + hint
            if !current.isEmpty, DisplayWidth.of(candidate) > width {
                lines.append(current)
                current = hint
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `text` with the style's SGR codes. A framed row (`│ … │`) keeps its border plain (dim)
    /// and styles only its inside, so a focused row does not light up the frame.
    private func styled(_ text: String, _ style: ScreenStyle) -> String {
        guard usesColor else { return text }
        let code = Self.code(for: style)
        if text.hasPrefix("│ "), text.hasSuffix(" │"), text.count >= 4 {
            let inner = String(text.dropFirst(2).dropLast(2))
            let border = "\u{1B}[2m│\u{1B}[0m"
            return border + " " + (code.map { "\u{1B}[\($0)m" + inner + "\u{1B}[0m" } ?? inner) + " " + border
        }
        guard let code else { return text }
        return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
    }

    private static func code(for style: ScreenStyle) -> String? {
        switch style {
        case .frame, .muted, .subtitle: "2"
        case .title: "1"
        case .focused: "1;7"
        case .button, .amounts: "1"
        case .success: "1;32"
        case .failure: "31"
        case .notice: "33"
        case .body, .detail, .blank: nil
        }
    }
}
