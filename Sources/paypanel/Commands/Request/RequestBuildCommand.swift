import PayPanel

/// `paypanel request build (--amount X | --segment N) [--panel FILE] [--json]`
struct RequestBuildCommand: CLICommand {
    static let spec = CommandSpec(
        name: "build",
        abstract: "Build the Apple Pay payment request for one of the panel's amounts.",
        discussion: """
            The panel defaults to the seed: merchant.com.sample.ApplePayAction, visa/masterCard/amex, \
            3-D Secure, US, USD, "Some Product" for 5, 10 or 20. Without --amount or --segment the \
            panel's default segment is used. Warnings go to standard error.
            """,
        options: [
            .value("--amount", "amount", help: "One of the panel's amounts, as a decimal: 5, 10.00, 20."),
            .value("--segment", "n", help: "The segment to select, numbered from 1."),
            .value("--panel", "file", help: "A panel configuration JSON (see fixtures/panels/seed.json)."),
            .flag("--json", help: "Print compact single-line JSON (default: indented)."),
        ],
        combinations: "(--amount <amount> | --segment <n>)")

    let amount: String?
    let segment: Int?
    let panelFile: String?
    let compact: Bool

    init(arguments: ParsedArguments) throws {
        amount = arguments.value("--amount")
        segment = try arguments.integer("--segment", in: 1...PanelConfig.maximumAmountOptions)
        if amount != nil && segment != nil {
            throw UsageError("give either '--amount' or '--segment', not both")
        }
        panelFile = arguments.value("--panel")
        compact = arguments.flag("--json")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let panel = try ValidationOutput.loadPanel(panelFile, console: console)
        var selector = try panel.makeSelector()
        if let amount { try selector.select(amountText: amount) }
        if let segment { try selector.select(segment: segment) }
        let request = PaymentRequest(panel: panel, selection: selector)
        let report = PaymentRequestRules.check(request)
        ValidationOutput.printDiagnostics(report, console: console)
        guard report.isValid else {
            throw CLIFailure(code: "invalid_request", message: "the panel does not make a valid payment request (see the errors above)")
        }
        console.printJSON(request.json, pretty: !compact)
        return .success
    }
}
