import PayPanel

/// `paypanel payments list [--status S] [--limit N] [--json] [--db PATH]`
struct PaymentsListCommand: CLICommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List payment intents, newest first.",
        discussion: """
            Rows stream from the database as they are printed, so listing 100,000 intents takes no \
            more memory than listing 100. --json prints a JSON array with one intent per line.
            """,
        options: [
            .value("--status", "status", help: "Only intents in this status (\(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", ")))."),
            .value("--limit", "n", help: "At most this many intents (default: all)."),
            CommonOptions.json, CommonOptions.database, CommonOptions.now,
        ],
        aliases: ["ls"])

    let arguments: ParsedArguments
    let status: PaymentStatus?
    let limit: Int?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        status = try arguments.choice("--status", from: PaymentStatus.allCases.map(\.rawValue)).flatMap(PaymentStatus.init(rawValue:))
        limit = try arguments.integer("--limit", in: 1...1_000_000_000)
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let paymentLedger = PaymentLedger(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openPaymentStore())
        let console = context.console
        var count = 0
        console.print(json ? "[" : PaymentsText.listHeader)
        try paymentLedger.forEachIntent(status: status, limit: limit) { intent in
            if json {
                console.print((count == 0 ? "" : ",") + JSONWriter.string(intent.json))
            } else {
                console.print(PaymentsText.listRow(intent))
            }
            count += 1
        }
        if json { console.print("]") }
        return .success
    }
}
