import PayPanel

/// `paypanel notify show FILE [--expanded] [--compact] [--width N] [--select N] [--update FILE]... [--now T] [--json]`
struct NotifyShowCommand: CLICommand {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show a notification as a device would: the banner, or the expanded payment panel.",
        discussion: """
            The banner shows the title and subtitle on one line each and the body cut to 4 lines (2 \
            with --compact), ending with '…'. --expanded shows the full text, the segmented amounts \
            (the selected one in brackets) and the Buy with Apple Pay and Pay in app buttons. \
            --update applies a later notification for the same panel (same thread-id or order \
            reference) in place, keeping the selected amount when it is still offered.
            """,
        arguments: [.required("file", help: "The payload JSON, or - for standard input.")],
        options: [
            .flag("--expanded", help: "Show the expanded payment panel instead of the banner."),
            .flag("--compact", help: "A compact banner: 2 body lines instead of 4."),
            NotifyInput.width,
            .value("--select", "segment", help: "Select this amount segment (numbered from 1) before any update. Needs --expanded."),
            .value("--update", "file", repeatable: true, help: "A later payload for the same panel, applied in order. Needs --expanded."),
            CommonOptions.now,
            CommonOptions.json,
        ])

    let file: String
    let expanded: Bool
    let options: RenderOptions
    let segment: Int?
    let updates: [String]
    let json: Bool
    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        file = arguments.positional(0) ?? "-"
        expanded = arguments.flag("--expanded")
        let compact = arguments.flag("--compact")
        if expanded && compact { throw UsageError("'--compact' applies to the banner; it cannot be combined with '--expanded'") }
        options = RenderOptions(width: try NotifyInput.width(arguments), compact: compact)
        segment = try arguments.integer("--select", in: 1...PanelConfig.maximumAmountOptions)
        updates = arguments.allValues("--update")
        if !expanded && (segment != nil || !updates.isEmpty) {
            throw UsageError("'--select' and '--update' act on the open panel: add '--expanded'")
        }
        json = arguments.flag(CommonOptions.json.name)
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let clock = try arguments.clock(environment: context.environment)
        let payload = try NotifyInput.deliverablePayload(file, console: console)
        var lines: [RenderedLine]
        var summaries: [String] = []
        var selected: String?
        if expanded {
            var state = try NotificationPanelState(payload: payload)
            if let segment { try state.selector.select(segment: segment) }
            for updateFile in updates {
                let update = try NotifyInput.deliverablePayload(updateFile, console: console, what: "update payload")
                switch state.apply(update) {
                case .applied(let change):
                    summaries.append(change.summary)
                case .notForThisPanel(let reason), .rejected(let reason):
                    throw CLIFailure(code: "update_not_applied", message: "the update \(updateFile) was not applied: \(reason)")
                }
            }
            lines = NotificationRenderer.expandedPanel(state, options: options, now: clock.now())
            selected = state.selector.selected.description
        } else {
            lines = NotificationRenderer.banner(NotificationContent(aps: payload.aps), options: options)
        }
        if json {
            var object = JSONObject()
            object["view"] = .string(expanded ? "expanded" : (options.compact ? "compact-banner" : "banner"))
            object["width"] = .number(options.width)
            object["lines"] = .array(lines.map { .string($0.text) })
            if let selected { object["selectedAmount"] = .string(selected) }
            if expanded { object["updates"] = .array(summaries.map(JSONValue.string)) }
            console.printJSON(.object(object))
        } else {
            console.print(lines.plainText, terminator: "")
        }
        return .success
    }
}
