import PayPanel

/// `paypanel reconcile [--json] …`
struct ReconcileCommand: CLICommand {
    static let spec = CommandSpec(
        name: "reconcile",
        abstract: "Look up every payment whose outcome is unknown, and run the timers that are due.",
        discussion: """
            For every processor call still waiting for an answer (a timeout, an HTTP 500, a crash), asks \
            the processor what happened — now, whatever its retry schedule — and records it: an approval is \
            kept (or reversed when the Apple Pay sheet was already told it failed); an authorization the \
            processor never received fails after the grace period (5 minutes: it may still be in transit), \
            while a capture, void or refund it never received is sent again with the same reference. Then \
            fires the timers due at --now: authorization expiry (with a best-effort void), abandoned \
            intents, sheet deadlines, scheduled lookups. \
            Safe to run at any time and from several processes. Exits 1 when an intent could not be \
            reconciled (it is named on standard error; the others were reconciled).
            """,
        options: CheckoutOptions.all)

    let arguments: ParsedArguments

    init(arguments: ParsedArguments) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws -> ExitStatus {
        let service = try arguments.openPaymentService(environment: context.environment)
        let report = try await service.reconcile()
        let console = context.console
        if arguments.flag(CommonOptions.json.name) {
            console.printJSON(report.json)
        } else if report.lookups.isEmpty && report.timers.isEmpty && report.failures.isEmpty {
            console.print("Nothing to reconcile: no unknown outcomes, no timers due.")
        } else {
            for lookup in report.lookups {
                console.print("\(lookup.intentID)  \(lookup.call.operationName) \(lookup.call.reference): \(lookup.findingName)  \(transition(lookup.statusBefore, lookup.statusAfter))")
            }
            for timer in report.timers {
                console.print("\(timer.intentID)  timer \(timer.kind.rawValue): \(transition(timer.statusBefore, timer.statusAfter))")
            }
        }
        guard report.failures.isEmpty else {
            for failure in report.failures {
                console.printError("Error: \(failure.intentID): \(failure.message)")
            }
            console.printError("Error: \(report.failures.count) payment intent(s) could not be reconciled (the others were): run 'paypanel reconcile' again, or look at them with 'paypanel payments show'")
            return .failure
        }
        return .success
    }

    private func transition(_ before: PaymentStatus?, _ after: PaymentStatus?) -> String {
        let from = before?.rawValue ?? "?"
        let to = after?.rawValue ?? "?"
        return from == to ? "(still \(to))" : "\(from) → \(to)"
    }
}
