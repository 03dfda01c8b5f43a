import PayPanel

/// `paypanel notify validate [FILE|-] [--json]`
struct NotifyValidateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Validate an APNs push payload: aps types, the panel, the media payload string and the 4096-byte limit.",
        discussion: """
            Reports every problem, one 'error: <path>: <reason>' line each on standard error, and \
            warnings as 'warning: <path>: <reason>'. Exit 0 when valid, 1 when not.
            """,
        arguments: [.optional("file", help: "The payload JSON, or - for standard input (the default).")],
        options: [CommonOptions.json])

    let file: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        file = arguments.positional(0)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let result = PushPayloadReader.read(data: try InputFile.read(file, console: console, what: "notification payload"))
        let report = result.report
        var document = report.json.objectValue ?? JSONObject()
        document["byteCount"] = .optional(result.compactByteCount.map(Int64.init))
        document["maximumByteCount"] = .number(PushPayload.maximumByteCount)
        return ValidationOutput.finish(report, json: json, document: .object(document), summary: {
            let name = file ?? "-"
            let size = result.compactByteCount.map { " (\($0) of \(PushPayload.maximumByteCount) bytes)" } ?? ""
            if report.isValid {
                let kind = result.payload?.panel != nil ? "payment-action payload" : "push payload"
                return "\(name): valid \(kind)\(size)"
            }
            return "\(name): invalid push payload: \(ValidationOutput.count(report.errors.count, "error"))\(size)"
        }, console: console)
    }
}
