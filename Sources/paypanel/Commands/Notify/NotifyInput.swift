import PayPanel

/// Reading push payloads for the `notify` commands, with the same reporting everywhere:
/// warnings as `warning: <path>: <reason>`, errors as `error: <path>: <reason>` on stderr.
enum NotifyInput {
    /// The payload in `file` (or stdin for `-`), when a device would deliver it: every error
    /// other than a malformed media `payload` string stops the command. Media-string problems
    /// are printed as warnings, since the service extension falls back instead of failing.
    static func deliverablePayload(_ file: String?, console: Console, what: String = "notification payload") throws -> PushPayload {
        let bytes = try InputFile.read(file, console: console, what: what)
        let result = PushPayloadReader.read(data: bytes)
        guard let payload = result.deliverablePayload else {
            result.report.errors.forEach { console.printError("error: \($0)") }
            result.report.warnings.forEach { console.printError("warning: \($0)") }
            let count = result.report.errors.count
            throw CLIFailure(code: "invalid_payload",
                             message: "the \(what) \(file ?? "-") is invalid (\(count) error\(count == 1 ? "" : "s") above); 'paypanel notify validate' explains each")
        }
        result.report.errors.forEach { console.printError("warning: \($0)") }
        result.report.warnings.forEach { console.printError("warning: \($0)") }
        return payload
    }

    /// Seconds given on the command line (`0.5`, `25`): a plain decimal in `range`.
    static func seconds(_ text: String?, option: String, range: ClosedRange<Double>) throws(UsageError) -> Duration? {
        guard let text else { return nil }
        let isPlainDecimal = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            && text.filter({ $0 == "." }).count <= 1 && text.first != "." && text.last != "."
        guard isPlainDecimal, let value = Double(text), range.contains(value) else {
            throw UsageError("'\(option)' takes a number of seconds from \(formatted(range.lowerBound)) to \(formatted(range.upperBound)), not '\(text)'")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    private static func formatted(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }

    /// The terminal width option shared by `show` and `deliver`.
    static let width = OptionSpec.value(
        "--width", "columns", help: "Width of the banner or panel in columns, borders included (\(RenderOptions.minimumWidth)–200, default \(RenderOptions.defaultWidth)).")

    static func width(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        try arguments.integer(width.name, in: RenderOptions.minimumWidth...200) ?? RenderOptions.defaultWidth
    }
}
