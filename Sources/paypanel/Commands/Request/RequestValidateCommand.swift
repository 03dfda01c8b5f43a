import PayPanel

/// `paypanel request validate [FILE|-] [--json]`
struct RequestValidateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Validate an Apple Pay payment request as strictly as Apple does.",
        discussion: """
            Reports every violation, one 'error: <path>: <reason>' line each on standard error, and \
            warnings as 'warning: <path>: <reason>'. Exit 0 when valid, 1 when not.
            """,
        arguments: [.optional("file", help: "The request JSON, or - for standard input (the default).")],
        options: [CommonOptions.json])

    let file: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        file = arguments.positional(0)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let bytes = try InputFile.read(file, console: context.console, what: "payment request")
        let result = PaymentRequestValidator.validate(data: bytes)
        let report = result.report
        let console = context.console
        if json {
            console.printJSON(report.json)
        } else {
            ValidationOutput.printDiagnostics(report, console: console)
            let name = file ?? "-"
            let warnings = report.warnings.isEmpty ? "" : " (\(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s"))"
            if let total = result.request?.total?.amount {
                console.print("\(name): valid payment request for \(total)\(warnings)")
            } else {
                console.print("\(name): invalid payment request: \(report.errors.count) error\(report.errors.count == 1 ? "" : "s")\(warnings)")
            }
        }
        return report.isValid ? .success : .failure
    }
}
