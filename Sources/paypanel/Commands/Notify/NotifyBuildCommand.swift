import PayPanel

/// `paypanel notify build [--panel FILE] [--title T] [--subtitle S] [--body B] [--order REF] [--json]`
struct NotifyBuildCommand: CLICommand {
    static let spec = CommandSpec(
        name: "build",
        abstract: "Build the payment-action push payload (category PAYMENT_ACTION, mutable-content 1, panel key).",
        discussion: """
            The panel defaults to the seed (merchant.com.sample.ApplePayAction, "Some Product" for 5, 10 \
            or 20 USD). The thread-id is order-<reference> with --order (or the panel's orderReference), \
            else panel-<merchant identifier>: later pushes with the same thread or order update the open \
            panel. The result is checked like 'notify validate', including the 4096-byte limit.
            """,
        options: [
            .value("--panel", "file", help: "A panel configuration JSON (see fixtures/panels/seed.json)."),
            .value("--title", "text", help: "The banner title (default: the product label)."),
            .value("--subtitle", "text", help: "The banner subtitle."),
            .value("--body", "text", help: "The banner body (default: the amounts on offer)."),
            .value("--order", "reference", help: "The merchant's order reference; sets the panel's orderReference and the thread-id."),
            .flag("--json", help: "Print compact single-line JSON, as sent to APNs (default: indented)."),
        ])

    let panelFile: String?
    let title: String?
    let subtitle: String?
    let body: String?
    let order: String?
    let compact: Bool

    init(arguments: ParsedArguments) throws {
        panelFile = arguments.value("--panel")
        title = arguments.value("--title")
        subtitle = arguments.value("--subtitle")
        body = arguments.value("--body")
        order = arguments.value("--order")
        if let order, order.trimmingWhitespace().isEmpty { throw UsageError("'--order' must not be empty") }
        compact = arguments.flag("--json")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let panel = try ValidationOutput.loadPanel(panelFile, console: console)
        let builder = PaymentActionPayloadBuilder(panel: panel, title: title, subtitle: subtitle, body: body, orderReference: order)
        let payload = try builder.build()
        console.printJSON(.object(payload.document), pretty: !compact)
        return .success
    }
}
