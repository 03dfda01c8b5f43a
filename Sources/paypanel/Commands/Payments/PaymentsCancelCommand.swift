import PayPanel

/// `paypanel payments cancel ID [--reason R] [--json] [--db PATH] [--now TIME]`
struct PaymentsCancelCommand: CLICommand {
    static let spec = CommandSpec(
        name: "cancel",
        abstract: "Cancel a payment intent that has not been captured.",
        discussion: """
            Before authorization the intent is canceled at once. An authorized intent (requires_capture) \
            is canceled by voiding its authorization at the processor; if the processor gives no usable \
            answer it stays processing until 'paypanel reconcile' learns the outcome. Captured, canceled \
            and expired intents cannot be canceled (refund a captured one instead).
            """,
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [
            .value("--reason", "reason", help: "\(CancellationReason.merchantReasons.map(\.rawValue).joined(separator: ", ")) (default: requested_by_customer)."),
        ] + CheckoutOptions.all)

    let arguments: ParsedArguments
    let id: String
    let reason: CancellationReason

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        reason = try arguments.choice("--reason", from: CancellationReason.merchantReasons.map(\.rawValue))
            .flatMap(CancellationReason.init(rawValue:)) ?? .requestedByCustomer
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let outcome = try await service.cancel(id, reason: reason)
        return PaymentsOutcomeOutput.print(outcome, arguments: arguments, console: context.console)
    }
}
