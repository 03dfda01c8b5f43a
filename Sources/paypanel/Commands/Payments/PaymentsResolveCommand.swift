import PayPanel

/// `paypanel payments resolve ID --as authorized|succeeded|canceled|retry --note TEXT [--operator NAME] [--force] …`
struct PaymentsResolveCommand: CLICommand {
    static let spec = CommandSpec(
        name: "resolve",
        abstract: "Resolve an intent in requires_merchant_action: authorized, succeeded, canceled or retry.",
        discussion: """
            An intent waits in requires_merchant_action when reconciliation ran out of lookups, or the \
            processor approved or captured another amount than asked: the program does not guess. Look at it \
            ('paypanel payments show ID', 'paypanel processor ledger'), then say what happened with --as. \
            The intent's current attempt is looked up at the processor first, and a resolution its ledger \
            contradicts is refused unless --force is given: succeeded needs a capture there, authorized a live \
            authorization, retry no money held, and nothing is resolved while the processor cannot be asked. \
            authorized: the intent waits in requires_capture until the authorization's deadline (7 days from \
            the attempt, or the processor's expiry), or is captured at once with automatic capture. succeeded: \
            the captured amount is what the processor captured (forced: the authorized amount). canceled: an \
            authorization the processor still holds is voided first. retry: the attempt ends and the payer may \
            pay again. The note, the operator, whether it was forced and what the processor said are kept in \
            the intent's history.
            """,
        arguments: [.required("id", help: "The payment intent id (pi_…).")],
        options: [
            .value("--as", "resolution", help: "\(IntentResolution.allCases.map(\.rawValue).joined(separator: ", ")): what happened."),
            .value("--note", "text", help: "Why: what was checked and decided (required, up to \(OperatorRecord.maximumNoteLength) characters; kept in the history)."),
            .value("--operator", "name", help: "Who resolves it (default: $USER)."),
            .flag("--force", help: "Apply the resolution although the processor's ledger contradicts it (recorded as forced)."),
        ] + CheckoutOptions.all,
        combinations: "--as <resolution> --note <text>")

    let arguments: ParsedArguments
    let id: String
    let resolution: IntentResolution
    let note: String
    let force: Bool
    let json: Bool

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
        id = arguments.positional(0) ?? ""
        guard let resolution = try arguments.choice("--as", from: IntentResolution.allCases.map(\.rawValue)).flatMap(IntentResolution.init(rawValue:))
        else {
            throw UsageError("Missing expected option '--as <resolution>': one of \(IntentResolution.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let note = arguments.value("--note") else {
            throw UsageError("Missing expected option '--note <text>': say what was checked and decided; it is kept in the intent's history")
        }
        do {
            _ = try OperatorRecord(note: note, actor: "operator")
        } catch {
            throw UsageError("'--note': \(error.message)")
        }
        self.resolution = resolution
        self.note = note
        force = arguments.flag("--force")
        json = arguments.flag(CommonOptions.json.name)
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let actor = try operatorName(environment: context.environment)
        let service = try arguments.openPaymentService(environment: context.environment)
        let resolved: ResolutionOutcome
        do {
            resolved = try await service.resolve(id, as: resolution, note: note, actor: actor, force: force)
        } catch let rejection as PaymentRejection {
            throw explained(rejection)
        }
        let console = context.console
        if json {
            console.printJSON(resolved.json)
        } else {
            PaymentsText.outcome(resolved.outcome).forEach { console.print($0) }
            let record = resolved.record
            console.print("  resolved    \(resolution.rawValue) by \(record.actor)\(record.forced ? ", forced" : "")")
            console.print("  processor   \(resolved.processorSays)")
            console.print("  note        \(JSONWriter.quoted(record.note))")
        }
        if resolved.record.forced, let holding = resolved.record.processor, !holding.allows(resolution) {
            console.printError("note: forced although \(resolved.processorSays); the override is recorded in the intent's history")
        } else if resolved.record.forced && resolved.record.processor == nil {
            console.printError("note: forced without the processor's word; the override is recorded in the intent's history")
        }
        let intent = resolved.outcome.intent
        if intent.status == .processing, let call = intent.inFlight, call.outcomeUnknownSince != nil {
            console.printError(
                "Error: the resolution is recorded, but the processor gave no usable answer to the \(call.kind.rawValue) of \(call.attemptID); the intent stays processing until 'paypanel reconcile' learns the outcome")
            return .failure
        }
        if let next = PaymentsOutcomeOutput.note(for: resolved.outcome.intent) { console.printError("note: \(next)") }
        return .success
    }

    /// `--operator`, else `$USER`.
    private func operatorName(environment: [String: String]) throws -> String {
        let name = arguments.value("--operator") ?? environment["USER"].flatMap { $0.isEmpty ? nil : $0 }
        guard let name else {
            throw UsageError("Missing expected option '--operator <name>' ($USER is not set): say who resolves the intent")
        }
        do {
            _ = try OperatorRecord(note: "-", actor: name)
        } catch {
            throw UsageError("'--operator': \(error.message)")
        }
        return name
    }

    /// The machine's refusals, in the command's words.
    private func explained(_ rejection: PaymentRejection) -> any Error {
        switch rejection.reason {
        case .notAllowed(_, let status):
            return CLIFailure(
                code: rejection.code,
                message: "payment intent \(id) is \(status.rawValue): only an intent in requires_merchant_action can be resolved; see 'paypanel payments show \(id)'")
        case .resolutionContradictsProcessor(let resolution, let processor, let consistent):
            let instead = consistent.isEmpty
                ? "try again once the processor answers"
                : "resolve it with --as \(consistent.map(\.rawValue).joined(separator: " or ")) instead"
            return CLIFailure(
                code: rejection.code,
                message: "cannot resolve payment intent \(id) as \(resolution.rawValue): \(processor); \(instead), or pass --force to override the processor's ledger (the override is recorded)")
        default:
            return rejection
        }
    }
}
