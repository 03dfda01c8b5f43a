import PayPanel

/// `paypanel payments show ID [--json] [--db PATH]`
struct PaymentsShowCommand: CLICommand {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show a payment intent with its attempts, refunds and event history.",
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [CommonOptions.json, CommonOptions.database, CommonOptions.now])

    let arguments: ParsedArguments
    let id: String
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let paymentLedger = PaymentLedger(store: try arguments.openStoreFactory(environment: context.environment, clock: clock).openPaymentStore())
        guard let details = try paymentLedger.details(id) else {
            throw PaymentStoreError(reason: .intentNotFound(id))
        }
        if json {
            context.console.printJSON(details.json)
        } else {
            PaymentsText.details(details).forEach { context.console.print($0) }
        }
        return .success
    }
}
