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
    ///
    /// The rows go, in order, to the key hints (always shown whole), the box, a blank line,
    /// the header and the footer. A box taller than its share loses its blank rows and
    /// dividers, then rows from its top (`fitted`): every screen has its action (Confirm, Buy,
    /// Done) at the bottom. Below the smallest size that leaves room for that, the
    /// frame says how big the window must be instead.
    func compose(box lines: [ScreenLine], hints: [String], footer: [ScreenLine], header: String? = nil, columns: Int, rows: Int) -> String {
        let hintLines = Self.wrapHints(hints, width: max(columns - 2, 10))
        guard columns >= Self.minimumColumns, rows >= hintLines.count + Self.minimumBoxLines else {
            return tooSmall(columns: columns, rows: rows, hints: hints)
        }
        let box = Self.fitted(lines, height: rows - hintLines.count)
        var content: [(line: ScreenLine, centred: Bool)] = box.map { ($0, true) }
        if box.count + hintLines.count < rows { content.append((ScreenLine("", style: .blank), false)) }
        content += hintLines.map { (ScreenLine($0, style: .muted), false) }
        if !footer.isEmpty { content.append((ScreenLine("", style: .blank), false)) }
        let boxWidth = box.map { DisplayWidth.of($0.text) }.max() ?? 0
        let boxMargin = max((columns - boxWidth) / 2, 0)
        let top = content.count + 1 < rows ? 1 : 0
        var frame = ""
        var row = top
        func put(_ line: ScreenLine, margin: Int) {
            let text = line.text.truncated(toColumns: max(columns - margin, 1))
            frame += "\u{1B}[\(row + 1);1H" + String(repeating: " ", count: margin) + styled(text, line.style) + "\u{1B}[K"
            row += 1
        }
        for entry in content where row < rows {
            let reference = entry.centred ? boxWidth : DisplayWidth.of(entry.line.text)
            put(entry.line, margin: max((columns - reference) / 2, 0))
        }
        // The log reads down from the box's left edge, like the box's own lines.
        for line in footer where row < rows { put(line, margin: boxMargin) }
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

    /// The narrowest terminal the box fits in (it is never drawn narrower).
    static let minimumColumns = RenderOptions.minimumWidth
    /// The fewest box rows that still show its action: top border, `⋮`, action, bottom border.
    static let minimumBoxLines = 4

    /// `lines` cut to `height`: blank rows and dividers go first (they carry nothing to read),
    /// then rows from the top, which a `⋮` row stands for; the last rows, which hold the
    /// screen's action, and the borders stay.
    static func fitted(_ lines: [ScreenLine], height: Int) -> [ScreenLine] {
        guard lines.count > height, height >= minimumBoxLines, let top = lines.first, let bottom = lines.last else { return lines }
        var inner = Array(lines.dropFirst().dropLast())
        while inner.count + 2 > height,
              let spacing = inner.indices.dropLast().first(where: { inner[$0].style == .blank || inner[$0].text.hasPrefix("├") }) {
            inner.remove(at: spacing)
        }
        guard inner.count + 2 > height else { return [top] + inner + [bottom] }
        let width = DisplayWidth.of(top.text)
        let marker = ScreenLine("│ ⋮" + String(repeating: " ", count: max(width - 4, 0)) + "│", style: .muted)
        return [top, marker] + inner.suffix(height - 3) + [bottom]
    }

    /// What a terminal too small for the checkout shows: its size, the size it needs, and how
    /// to leave (the keys still work).
    private func tooSmall(columns: Int, rows: Int, hints: [String]) -> String {
        let width = max(columns, Self.minimumColumns)
        let needed = (width: width, rows: Self.wrapHints(hints, width: max(width - 2, 10)).count + Self.minimumBoxLines)
        // Short lines: they must fit the very window that is too small.
        let text = ["Window too small", "now \(columns)×\(rows)", "needs \(needed.width)×\(needed.rows)", "Ctrl-C leaves"]
        var frame = ""
        for (offset, line) in text.prefix(max(rows, 1)).enumerated() {
            let cut = line.truncated(toColumns: max(columns, 1))
            let margin = String(repeating: " ", count: max((columns - DisplayWidth.of(cut)) / 2, 0))
            frame += "\u{1B}[\(offset + 1);1H" + margin + styled(cut, offset == 0 ? .notice : .muted) + "\u{1B}[K"
        }
        return frame + "\u{1B}[J"
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
