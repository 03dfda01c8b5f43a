import PayPanel

/// `paypanel payments challenge ID pass|fail|abandon`
struct PaymentsChallengeCommand: CLICommand {
    static let spec = CommandSpec(
        name: "challenge",
        abstract: "Answer the 3-D Secure challenge of an intent in requires_action.",
        arguments: [
            .required("id", help: "The payment intent id (pi_…)."),
            .required("result", help: "pass, fail or abandon: what the cardholder did."),
        ],
        options: CheckoutOptions.all)

    let arguments: ParsedArguments
    let id: String
    let result: ChallengeResult

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        let text = arguments.positional(1) ?? ""
        guard let result = ChallengeResult(rawValue: text) else {
            throw UsageError("the challenge result must be pass, fail or abandon, not '\(text)'")
        }
        self.result = result
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let outcome = try await service.completeChallenge(id, result: result)
        return PaymentsOutcomeOutput.print(outcome, arguments: arguments, console: context.console)
    }
}

/// `paypanel payments capture ID [--amount X]`
struct PaymentsCaptureCommand: CLICommand {
    static let spec = CommandSpec(
        name: "capture",
        abstract: "Capture an authorized (requires_capture) intent, in full or in part.",
        discussion: "Capture only from requires_capture, before its capture deadline, 0 < amount ≤ capturable. A partial capture releases the rest.",
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [.value("--amount", "amount", help: "The amount to capture, e.g. 6.00 (default: all that is capturable).")] + CheckoutOptions.all)

    let arguments: ParsedArguments
    let id: String

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let amount = try await arguments.minorUnits("--amount", of: id, service: service)
        let outcome = try await service.capture(id, amount: amount)
        return PaymentsOutcomeOutput.print(outcome, arguments: arguments, console: context.console)
    }
}

/// `paypanel payments void ID`
struct PaymentsVoidCommand: CLICommand {
    static let spec = CommandSpec(
        name: "void",
        abstract: "Void the authorization of an intent that was not captured (requires_capture).",
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: CheckoutOptions.all)

    let arguments: ParsedArguments
    let id: String

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let outcome: PaymentOutcome
        do {
            outcome = try await service.void(id, reason: .requestedByCustomer)
        } catch let rejection as PaymentRejection {
            guard case .notAllowed("void", let status) = rejection.reason else { throw rejection }
            throw CLIFailure(
                code: rejection.code,
                message: "intent \(id) is \(status.rawValue): only an authorized, uncaptured intent (requires_capture) can be voided; use 'payments cancel' before authorization or 'payments refund' after capture")
        }
        return PaymentsOutcomeOutput.print(outcome, arguments: arguments, console: context.console)
    }
}

/// `paypanel payments refund ID [--amount X] [--reason R] [--idempotency-key KEY]`
struct PaymentsRefundCommand: CLICommand {
    static let spec = CommandSpec(
        name: "refund",
        abstract: "Refund a captured intent, in full or in part (several partial refunds are fine).",
        discussion: "The refunds of an intent (pending and succeeded) never add up to more than was captured: the remainder is checked inside the write that reserves the refund.",
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [
            .value("--amount", "amount", help: "The amount to refund, e.g. 4.00 (default: all that is refundable)."),
            .value("--reason", "reason", help: "\(RefundReason.allCases.map(\.rawValue).joined(separator: ", "))."),
            IdempotentOutput.keyOption,
        ] + CheckoutOptions.all)

    let arguments: ParsedArguments
    let id: String
    let reason: RefundReason?
    let idempotencyKey: String?
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        reason = try arguments.choice("--reason", from: RefundReason.allCases.map(\.rawValue)).flatMap(RefundReason.init(rawValue:))
        idempotencyKey = try arguments.idempotencyKey()
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let amount = try await arguments.minorUnits("--amount", of: id, service: service)
        let outcome = try await service.refund(id, amount: amount, reason: reason, idempotencyKey: idempotencyKey)
        return PaymentsOutcomeOutput.print(outcome, key: idempotencyKey, json: json, console: context.console)
    }
}

extension PaymentsOutcomeOutput {
    /// Prints an outcome that is not under an idempotency key.
    @MainActor
    static func print(_ outcome: PaymentOutcome, arguments: ParsedArguments, console: Console) -> ExitStatus {
        print(outcome, key: nil, json: arguments.flag(CommonOptions.json.name), console: console)
    }
}

extension ParsedArguments {
    /// An amount option parsed in the currency of intent `intentID`, in minor units.
    func minorUnits(_ option: String, of intentID: String, service: PaymentService) async throws -> Int64? {
        guard let text = value(option) else { return nil }
        guard let details = try await service.details(intentID) else {
            throw PaymentStoreError(reason: .intentNotFound(intentID))
        }
        do {
            return try Amount.parse(text, currency: details.intent.currency).minorUnits
        } catch {
            throw UsageError("'\(option)': \(error.message)")
        }
    }
}
