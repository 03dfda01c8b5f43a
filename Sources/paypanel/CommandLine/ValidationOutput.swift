import PayPanel

/// How commands print what a validator found, and load a panel file: the same lines and the
/// same failure everywhere.
enum ValidationOutput {
    /// One `error: <path>: <reason>` line per error, then one `warning: …` line per warning,
    /// on standard error.
    static func printDiagnostics(_ report: ValidationReport, console: Console, warningsOnly: Bool = false) {
        if !warningsOnly { report.errors.forEach { console.printError("error: \($0)") } }
        report.warnings.forEach { console.printError("warning: \($0)") }
    }

    /// Ends a `validate` command: with `--json` the report's JSON (`json`, or the report's own),
    /// otherwise the diagnostics on standard error and `summary` on standard output. Exit 0
    /// when valid, 1 when not.
    static func finish(
        _ report: ValidationReport, json: Bool, document: JSONValue? = nil, summary: () -> String, console: Console
    ) -> ExitStatus {
        if json {
            console.printJSON(document ?? report.json)
        } else {
            printDiagnostics(report, console: console)
            console.print(summary())
        }
        return report.isValid ? .success : .failure
    }

    /// "1 error", "3 warnings".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// The panel in `path` (`--panel`), or the seed panel when there is none. Its warnings are
    /// printed; its errors are printed and fail the command.
    static func loadPanel(_ path: String?, console: Console) throws -> PanelConfig {
        guard let path else { return .seed }
        let result = PanelConfigReader.read(data: try InputFile.read(path, console: console, what: "panel"))
        guard let panel = result.panel else {
            printDiagnostics(result.report, console: console)
            throw CLIFailure(code: "invalid_panel", message: "the panel \(path) is invalid (\(result.report.errors.count) error(s) above)")
        }
        printDiagnostics(result.report, console: console, warningsOnly: true)
        return panel
    }
}
