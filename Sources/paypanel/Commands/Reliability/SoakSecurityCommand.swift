import Foundation
import PayPanel
import PayPanelReliability

/// `paypanel soak security [--dir PATH] [--json]`
struct SoakSecurityCommand: CLICommand {
    static let spec = CommandSpec(
        name: "security",
        abstract: "Run every flow, then search the raw database, ledger and WAL files and every command's output for card data.",
        discussion: """
            Runs cards, an Apple Pay token, captures, voids, refunds, an unknown outcome and notifications \
            through this binary, with SQL injection strings in order references, idempotency keys, holder \
            names and notification text; provokes errors with card numbers in the input; replays and \
            tampers with the token. Then checks: the files are 0600; the raw bytes of the database, the \
            ledger and their -wal/-shm hold no PAN, DPAN, cryptogram, cardholder name or private key; \
            the injection strings are stored verbatim and every table is still there; no command printed \
            card data; the replayed and tampered tokens were refused. Exits 1 when a check fails.
            """,
        options: [ReliabilityOptions.directory, CommonOptions.json])

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let console = context.console
        let (directory, cleanup) = try ReliabilityOptions.workingDirectory(arguments, prefix: "soak-security")
        defer { cleanup() }
        let report = try SecurityRun(executable: try ReliabilityOptions.executablePath(), directory: directory).run()
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else {
            console.print("Security check: \(report.commands) commands, \(report.filesScanned.count) files (\(report.bytesScanned) bytes) searched for \(report.needles) secrets")
            for check in report.checks { console.print("  \(check.passed ? "✓" : "✗") \(check.name)\(check.passed ? "" : ": \(check.detail)")") }
            console.print(report.failures.isEmpty ? "  result: pass" : "  result: FAIL (\(report.failures.count))")
        }
        return report.failures.isEmpty ? .success : .failure
    }
}
