import Foundation
import PayPanel

/// Builds a framed box line by line.
struct Box {
    let options: CheckoutRenderOptions
    private(set) var lines: [ScreenLine]

    init(_ options: CheckoutRenderOptions) {
        self.options = options
        lines = [CheckoutScreenRenderer.screenLine(Frame.top(options.renderOptions))]
    }

    var innerWidth: Int { options.innerWidth }

    mutating func row(_ text: String, _ style: ScreenStyle) {
        lines.append(ScreenLine(Frame.row(text, role: .body, options.renderOptions).text, style: style))
    }

    mutating func centred(_ text: String, _ style: ScreenStyle) {
        lines.append(ScreenLine(Frame.centred(text, role: .body, options.renderOptions).text, style: style))
    }

    /// `text` wrapped to the box, every line with `style`.
    mutating func wrapped(_ text: String, _ style: ScreenStyle) {
        for line in TextWrapper.wrap(text, width: innerWidth).lines { row(line, style) }
    }

    /// `left` and `right` at the two ends of a row.
    mutating func spread(_ left: String, _ right: String, _ style: ScreenStyle) {
        let rightWidth = DisplayWidth.of(right)
        let leftText = left.truncated(toColumns: max(innerWidth - rightWidth - 1, 1))
        row(leftText.padded(toColumns: innerWidth - rightWidth) + right, style)
    }

    mutating func blank() { row("", .blank) }

    mutating func divider() {
        lines.append(CheckoutScreenRenderer.screenLine(Frame.divider(options.renderOptions)))
    }

    func finished() -> [ScreenLine] {
        lines + [CheckoutScreenRenderer.screenLine(Frame.bottom(options.renderOptions))]
    }
}
