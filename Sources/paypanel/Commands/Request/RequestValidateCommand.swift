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
        return ValidationOutput.finish(report, json: json, summary: {
            let name = file ?? "-"
            let warnings = report.warnings.isEmpty ? "" : " (\(ValidationOutput.count(report.warnings.count, "warning")))"
            if let total = result.request?.total?.amount {
                return "\(name): valid payment request for \(total)\(warnings)"
            }
            return "\(name): invalid payment request: \(ValidationOutput.count(report.errors.count, "error"))\(warnings)"
        }, console: context.console)
    }
}
