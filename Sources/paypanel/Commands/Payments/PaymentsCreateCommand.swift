import PayPanel

/// `paypanel payments create --amount X [--currency C] [--capture automatic|manual] [--order REF]
/// [--idempotency-key KEY] [--json] [--db PATH] [--now TIME]`
struct PaymentsCreateCommand: CLICommand {
    static let spec = CommandSpec(
        name: "create",
        abstract: "Create a payment intent waiting for a payment method.",
        discussion: """
            The amount is a decimal in the currency's units (10, 10.00; JPY has no decimals). With \
            --idempotency-key, running the command again with the same key and parameters prints the \
            same intent instead of creating another; the same key with other parameters is refused.
            """,
        options: [
            .value("--amount", "amount", help: "The amount to collect, e.g. 10.00 (required)."),
            .value("--currency", "code", help: "ISO 4217 currency code (default: USD)."),
            .value("--capture", "method", help: "automatic (capture on approval, the default) or manual (capture later)."),
            .value("--order", "reference", help: "Your order reference, kept with the intent."),
            IdempotentOutput.keyOption,
            CommonOptions.json, CommonOptions.database, CommonOptions.now,
        ],
        usage: "--amount <amount> [--currency <code>] [--capture <method>] [--order <reference>] [--idempotency-key <key>] [--json] [--db <path>] [--now <time>]")

    let arguments: ParsedArguments
    let request: NewPaymentIntent
    let idempotencyKey: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        guard let amountText = arguments.value("--amount") else { throw UsageError("Missing expected option '--amount <amount>'") }
        let currency: Currency
        do {
            currency = try Currency(code: arguments.value("--currency") ?? "USD")
        } catch {
            throw UsageError("'--currency': \(error.message)")
        }
        let amount: Amount
        do {
            amount = try Amount.parse(amountText, currency: currency)
        } catch {
            throw UsageError("'--amount': \(error.message)")
        }
        let capture = try arguments.choice("--capture", from: CaptureMethod.allCases.map(\.rawValue)).flatMap(CaptureMethod.init(rawValue:))
        do {
            request = try NewPaymentIntent(amount: amount, captureMethod: capture ?? .automatic, orderReference: arguments.value("--order"))
        } catch {
            throw UsageError(error.message)
        }
        idempotencyKey = arguments.value(IdempotentOutput.keyOption.name)
        if let idempotencyKey {
            do {
                try IdempotencyStore.validate(idempotencyKey)
            } catch {
                throw UsageError("'--idempotency-key': \(error.message)")
            }
        }
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let clock = try arguments.clock(environment: context.environment)
        let database = try arguments.openDatabase(environment: context.environment, clock: clock)
        let repository = PaymentRepository(database: database)
        let now = clock.now()
        let parameters = JSONValue.orderedObject([
            ("amount", .number(request.amount.minorUnits)), ("currency", .string(request.amount.currency.code)),
            ("captureMethod", .string(request.captureMethod.rawValue)), ("orderReference", .optional(request.orderReference)),
        ])
        let response = try IdempotencyStore(database: database).perform(
            key: idempotencyKey, scope: "payments.create", parameters: parameters, at: now
        ) {
            var random = SystemRandomNumberGenerator()
            let intent = try repository.create(request, id: PaymentIDs.make(.intent, using: &random), at: now)
            return .succeeded(intent.json)
        }
        return IdempotentOutput.print(response, key: idempotencyKey, json: json, console: context.console, text: PaymentsText.intent)
    }
}
