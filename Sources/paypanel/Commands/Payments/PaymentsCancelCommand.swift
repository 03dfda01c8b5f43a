import PayPanel

/// `paypanel payments cancel ID [--reason R] [--json] [--db PATH] [--now TIME]`
struct PaymentsCancelCommand: CLICommand {
    static let spec = CommandSpec(
        name: "cancel",
        abstract: "Cancel a payment intent that has not been captured.",
        discussion: """
            Before authorization the intent is canceled at once. An authorized intent (requires_capture) \
            stays processing until the processor confirms the void of its authorization. Captured, \
            canceled and expired intents cannot be canceled (refund a captured one instead).
            """,
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [
            .value("--reason", "reason", help: "\(CancellationReason.merchantReasons.map(\.rawValue).joined(separator: ", ")) (default: requested_by_customer)."),
            CommonOptions.json, CommonOptions.database, CommonOptions.now,
        ])

    let arguments: ParsedArguments
    let id: String
    let reason: CancellationReason
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        reason = try arguments.choice("--reason", from: CancellationReason.merchantReasons.map(\.rawValue))
            .flatMap(CancellationReason.init(rawValue:)) ?? .requestedByCustomer
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let repository = PaymentRepository(database: try arguments.openDatabase(environment: context.environment, clock: clock))
        let transition = try repository.apply(.cancelRequested(reason: reason), to: id, expectedVersion: nil, at: clock.now())
        let console = context.console
        if json {
            console.printJSON(transition.intent.json)
        } else {
            PaymentsText.intent(transition.intent.json).forEach { console.print($0) }
        }
        for case .voidAuthorization(let attemptID, _) in transition.executorWork {
            console.printError("note: the authorization of attempt \(attemptID) is being voided; the intent stays processing until the processor confirms it")
        }
        return .success
    }
}
