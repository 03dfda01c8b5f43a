import PayPanel

/// `paypanel payments create --amount X [--currency C] [--capture automatic|manual] [--order REF]
/// [--metadata KEY=VALUE ...] [--idempotency-key KEY] [--json] [--db PATH] [--now TIME]`
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
            .value("--metadata", "key=value", repeatable: true, help: "A key-value pair of your own, kept with the intent (up to 50)."),
            IdempotentOutput.keyOption,
            CommonOptions.json, CommonOptions.database, CommonOptions.now,
        ],
        combinations: "--amount <amount>")

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
        let metadata = try Self.metadata(arguments.allValues("--metadata"))
        do {
            request = try NewPaymentIntent(
                amount: amount, captureMethod: capture ?? .automatic, orderReference: arguments.value("--order"), metadata: metadata)
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

    /// `--metadata key=value` pairs (a key given twice keeps its last value).
    static func metadata(_ pairs: [String]) throws(UsageError) -> Metadata {
        var values: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "=") else {
                throw UsageError("'--metadata' takes key=value, such as --metadata order=42, not \(JSONWriter.quoted(pair))")
            }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        do {
            return try Metadata(values)
        } catch {
            throw UsageError("'--metadata': \(error.message)")
        }
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment, needsProcessor: false)
        let created = try await service.createIntent(request, idempotencyKey: idempotencyKey)
        IdempotentOutput.noteReplay(key: idempotencyKey, replayed: created.replayed, firstUsedAt: created.firstUsedAt, console: context.console)
        if json {
            context.console.printJSON(created.intent.json)
        } else {
            PaymentsText.intent(created.intent).forEach { context.console.print($0) }
        }
        return .success
    }
}
