import Foundation
import PayPanel

/// Layout settings for `CheckoutScreenRenderer`.
public struct CheckoutRenderOptions: Sendable {
    /// Box width in columns, borders included.
    public var width: Int
    /// The time the screen is drawn at (panel expiry, the spinner's seconds).
    public var now: Date
    /// The terminal UI: draw the keyboard focus (`▶ … ◀`) and the card number being typed.
    /// Plain output marks only the selection and never shows a typed number.
    public var showsFocus: Bool
    /// The most lines the box may take; the sheet's card list scrolls to fit.
    public var maximumHeight: Int?
    /// Which spinner frame to draw.
    public var spinnerFrame: Int

    /// Options; the width is raised to `RenderOptions.minimumWidth` when below it.
    public init(width: Int = CheckoutRenderOptions.defaultWidth, now: Date, showsFocus: Bool = false, maximumHeight: Int? = nil, spinnerFrame: Int = 0) {
        self.width = max(width, RenderOptions.minimumWidth)
        self.now = now
        self.showsFocus = showsFocus
        self.maximumHeight = maximumHeight
        self.spinnerFrame = spinnerFrame
    }

    /// Wide enough for a wallet row ("● 2  Mastercard •••• 4444  declines: insufficient
    /// funds"), narrow enough to sit in an 80-column terminal with margins.
    public static let defaultWidth = 60

    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    var renderOptions: RenderOptions { RenderOptions(width: width) }
    var innerWidth: Int { renderOptions.innerWidth }
}

/// Draws each checkout screen as lines: the banner and panel through `NotificationRenderer`,
/// the Apple Pay sheet, the app's card form, the spinner, the 3-D Secure challenge and the
/// results. The library only lays out; the CLI prints or styles the lines.
public enum CheckoutScreenRenderer {
    /// The lines of `flow`'s current screen (none once it is finished).
    public static func render(_ flow: CheckoutFlow, options: CheckoutRenderOptions) -> [ScreenLine] {
        switch flow.screen {
        case .banner:
            return NotificationRenderer.banner(flow.panel.content, options: options.renderOptions).map(screenLine)
        case .panel:
            return NotificationRenderer.expandedPanel(
                flow.panel, options: options.renderOptions, focus: options.showsFocus ? flow.panelFocus : nil, now: options.now
            ).map(screenLine)
        case .sheet:
            guard let sheet = flow.sheet else { return [] }
            return SheetLayout(sheet: sheet, options: options).lines
        case .appForm:
            guard let form = flow.form else { return [] }
            return AppFormLayout(form: form, panel: flow.panel.panel, options: options).lines
        case .authorizing:
            guard let authorizing = flow.authorizing else { return [] }
            return authorizingLines(authorizing, options: options)
        case .challenge:
            guard let challenge = flow.challenge else { return [] }
            return challengeLines(challenge, merchant: flow.merchantName, options: options)
        case .approved, .unresolved:
            guard let report = flow.report else { return [] }
            return ResultLayout(report: report, merchant: flow.merchantName, nextSteps: flow.configuration.nextSteps,
                                options: options).lines
        case .failed:
            return problemLines(flow.problem ?? CheckoutProblem(code: "unknown", message: "unknown error"), options: options)
        case .closing:
            var box = Box(options)
            box.row("Closing: canceling the unpaid payment…", .notice)
            return box.finished()
        case .finished:
            return []
        }
    }

    private static func authorizingLines(_ state: AuthorizingState, options: CheckoutRenderOptions) -> [ScreenLine] {
        var box = Box(options)
        box.row(state.channel.title, .title)
        box.divider()
        box.blank()
        let spinner = CheckoutRenderOptions.spinner[options.spinnerFrame % CheckoutRenderOptions.spinner.count]
        box.centred("\(spinner) " + (state.step == .payment ? "Processing…" : "Checking with your bank…"), .title)
        box.centred("\(state.cardLabel) · \(state.amount)", .detail)
        let elapsed = Int(max(0, options.now.timeIntervalSince(state.startedAt)))
        if state.channel == .applePay && state.step == .payment {
            box.centred("\(elapsed) s — the sheet waits at most 30 s", .muted)
        } else {
            box.centred("\(elapsed) s", .muted)
        }
        box.blank()
        return box.finished()
    }

    private static func challengeLines(_ challenge: ChallengePrompt, merchant: String, options: CheckoutRenderOptions) -> [ScreenLine] {
        var box = Box(options)
        box.row("3-D Secure · your bank", .title)
        box.divider()
        box.wrapped("Your bank asks you to confirm the payment of \(challenge.amount) to \(merchant) with \(challenge.cardLabel).", .body)
        box.blank()
        let pass = options.showsFocus && challenge.focus == .pass ? "▶ [ Pass ] ◀" : "[ Pass ]"
        let fail = options.showsFocus && challenge.focus == .fail ? "▶ [ Fail ] ◀" : "[ Fail ]"
        box.centred("\(pass)     \(fail)", options.showsFocus ? .focused : .button)
        return box.finished()
    }

    private static func problemLines(_ problem: CheckoutProblem, options: CheckoutRenderOptions) -> [ScreenLine] {
        var box = Box(options)
        box.row("Payment not completed", .title)
        box.divider()
        box.wrapped("✕ " + problem.message, .failure)
        box.row(problem.code, .muted)
        box.blank()
        box.centred(options.showsFocus ? "▶ [ Done ] ◀" : "[ Done ]", options.showsFocus ? .focused : .button)
        return box.finished()
    }

    static func screenLine(_ line: RenderedLine) -> ScreenLine {
        let style: ScreenStyle = switch line.role {
        case .frame: .frame
        case .title: .title
        case .subtitle: .subtitle
        case .body: .body
        case .detail: .detail
        case .amounts: .amounts
        case .button(_, let focused): focused ? .focused : .button
        case .notice: .notice
        case .blank: .blank
        }
        return ScreenLine(line.text, style: style)
    }
}

extension CheckoutFlow {
    /// Who is paid, as the screens say it: the panel's merchant name, else the request's
    /// total label, else the merchant identifier.
    public var merchantName: String {
        panel.panel.merchantName?.sanitizedForTerminal() ?? sheet?.request.total?.label.sanitizedForTerminal()
            ?? panel.panel.productLabel.sanitizedForTerminal()
    }
}
