import MockProcessor
import PayPanel

/// `paypanel processor ledger [--reference REF] [--processor-db PATH] [--now TIME] [--json]`
struct ProcessorLedgerCommand: CLICommand {
    static let spec = CommandSpec(
        name: "ledger",
        abstract: "Show what the mock processor holds: one entry per operation.",
        discussion: """
            Every authorize, capture, void and refund the mock processor received and processed, in order, \
            with its status and decline code; never a card number or a cryptogram. Compare it with the payments \
            database after a test or a crash. JSON: an array of {"reference", "operation", "amount" (minor units), \
            "currency", "status", "declineCode", "network", "last4", "refundReference", "processorId", "trigger", \
            "expiresAt", "createdAt", "updatedAt"}.
            """,
        options: [
            .value("--reference", "reference", help: "Only this attempt id (with its captures, voids and refunds) or refund reference."),
            CommonOptions.processorDatabase, CommonOptions.now, CommonOptions.json,
        ])

    let reference: String?
    let json: Bool
    /// The clock and the ledger path are resolved in `run`, where the environment is known.
    private let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        reference = arguments.value("--reference")
        json = arguments.flag(CommonOptions.json.name)
        if let reference, reference.isEmpty { throw UsageError("'--reference' needs a reference, not an empty string") }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let ledger = try arguments.openProcessorLedger(environment: context.environment, clock: clock, mustExist: true)
        let entries = try ledger.entries(reference: reference, now: clock.now())
        let console = context.console
        if json {
            console.printJSON(.array(entries.map(\.json)))
            return .success
        }
        guard !entries.isEmpty else {
            let scope = reference.map { "has no entry for reference \(JSONWriter.quoted($0))" } ?? "is empty"
            console.print("The mock-processor ledger \(ledger.path) \(scope).")
            return .success
        }
        var table = TextTable(headers: ["PROCESSOR ID", "CREATED", "REFERENCE", "OPERATION", "AMOUNT", "STATUS", "CARD", "TRIGGER"])
        for entry in entries {
            let reference = entry.refundReference.map { "\(entry.reference) / \($0)" } ?? entry.reference
            let status = entry.declineCode.map { "\(entry.status.rawValue) (\($0.rawValue))" } ?? entry.status.rawValue
            let card = [entry.network, entry.last4.map { "•••• \($0)" }].compactMap { $0 }.joined(separator: " ")
            table.append([
                entry.processorID, Timestamp.format(entry.createdAt), reference, entry.operation.rawValue,
                entry.amount.description, status, card, entry.trigger ?? "",
            ])
        }
        table.lines.forEach { console.print($0) }
        return .success
    }
}
