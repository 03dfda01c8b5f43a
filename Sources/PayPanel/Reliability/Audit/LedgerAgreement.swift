/// Compares what the processor did (its ledger) with what the payments database believes,
/// after reconciliation has run: the "exactly once" check of the crash and concurrency soaks.
///
/// - every approved authorization is recorded by exactly one attempt, which knows it was
///   approved (authorized, captured, voided or expired — never failed or still waiting);
/// - no authorization is captured twice, and an intent is `succeeded` exactly when the
///   processor captured it, for the amount it captured;
/// - a voided attempt was voided at the processor;
/// - every refund the processor approved is a succeeded refund of the same attempt and amount,
///   every succeeded refund was approved by the processor, and the refunded total agrees;
/// - at most one authorization per intent still holds money.
public struct LedgerAgreement {
    public let machines: [PaymentStateMachine]
    public let effects: [ProcessorEffect]

    /// A comparison of every stored intent (`machines`) with the processor's ledger (`effects`).
    public init(machines: [PaymentStateMachine], effects: [ProcessorEffect]) {
        self.machines = machines
        self.effects = effects
    }

    /// Every disagreement, one sentence each; empty when the two sides agree.
    public func disagreements() -> [String] {
        var found: [String] = []
        var attempts: [String: (machine: PaymentStateMachine, attempt: Attempt)] = [:]
        var refunds: [String: (machine: PaymentStateMachine, refund: Refund)] = [:]
        for machine in machines {
            for attempt in machine.attempts { attempts[attempt.id] = (machine, attempt) }
            for refund in machine.refunds { refunds[refund.id] = (machine, refund) }
        }
        let byReference = Dictionary(grouping: effects, by: \.reference)

        for (reference, entries) in byReference.sorted(by: { $0.key < $1.key }) {
            func approved(_ operation: ProcessorOperation) -> [ProcessorEffect] {
                entries.filter { $0.operation == operation && $0.status == .approved }
            }
            let authorizations = approved(.authorize)
            let captures = approved(.capture)
            let voids = approved(.void)
            guard let (machine, attempt) = attempts[reference] else {
                if !authorizations.isEmpty {
                    found.append("the processor approved authorization \(reference) but no intent records the attempt: money held with no intent")
                }
                continue
            }
            let intent = machine.intent
            if authorizations.count > 1 { found.append("\(reference) was authorized \(authorizations.count) times") }
            if !authorizations.isEmpty && [.failed, .authorizing, .requiresAction].contains(attempt.status) {
                found.append("the processor approved \(reference) but its attempt is \(attempt.status.rawValue) (intent \(intent.id) \(intent.status.rawValue))")
            }
            if authorizations.isEmpty && [.authorized, .captured, .voided].contains(attempt.status) {
                found.append("attempt \(reference) is \(attempt.status.rawValue) but the processor approved no authorization for it")
            }
            if captures.count > 1 { found.append("\(reference) was captured \(captures.count) times") }
            if let capture = captures.first {
                if attempt.status != .captured {
                    found.append("the processor captured \(reference) but its attempt is \(attempt.status.rawValue) (intent \(intent.id) \(intent.status.rawValue))")
                }
                if intent.amountCaptured != capture.amount.minorUnits && intent.status != .requiresMerchantAction {
                    found.append("intent \(intent.id) captured \(intent.amountCaptured), the processor captured \(capture.amount.minorUnits)")
                }
            } else if attempt.status == .captured {
                found.append("attempt \(reference) is captured but the processor has no approved capture")
            }
            if attempt.status == .voided && voids.isEmpty {
                found.append("attempt \(reference) is voided but the processor has no approved void")
            }
            if !voids.isEmpty && ![.voided, .expired].contains(attempt.status) && intent.status != .requiresMerchantAction {
                found.append("the processor voided \(reference) but its attempt is \(attempt.status.rawValue)")
            }
            for refund in entries where refund.operation == .refund {
                guard let id = refund.refundReference, let (owner, stored) = refunds[id] else {
                    if refund.status == .approved || refund.status == .pending {
                        found.append("the processor refunded \(refund.amount) on \(reference) (\(refund.refundReference ?? "no refund id")) but no refund records it")
                    }
                    continue
                }
                if stored.attemptID != reference || owner.intent.id != intent.id || stored.amount != refund.amount {
                    found.append("refund \(id) is \(stored.amount) on \(stored.attemptID), the processor has \(refund.amount) on \(reference)")
                }
                switch (refund.status, stored.status) {
                case (.approved, .succeeded), (.declined, .failed), (.pending, .pending), (.approved, .requiresMerchantAction),
                    (.declined, .requiresMerchantAction):
                    break
                default:
                    found.append("refund \(id) is \(stored.status.rawValue) but the processor says \(refund.status.rawValue)")
                }
            }
        }
        let refundEffects = Dictionary(grouping: effects.filter { $0.operation == .refund && $0.refundReference != nil }, by: { $0.refundReference ?? "" })
        for (id, (machine, refund)) in refunds.sorted(by: { $0.key < $1.key }) where refund.status == .succeeded {
            if refundEffects[id]?.contains(where: { $0.status == .approved }) != true {
                found.append("refund \(id) of \(machine.intent.id) is succeeded but the processor approved no such refund")
            }
        }
        for machine in machines {
            let intent = machine.intent
            let attemptIDs = Set(machine.attempts.map(\.id))
            let mine = effects.filter { attemptIDs.contains($0.reference) }
            let capturedAtProcessor = mine.filter { $0.operation == .capture && $0.status == .approved }
            if intent.status == .succeeded && capturedAtProcessor.isEmpty {
                found.append("intent \(intent.id) is succeeded but the processor captured none of its attempts")
            }
            if capturedAtProcessor.count > 1 {
                found.append("intent \(intent.id) was captured \(capturedAtProcessor.count) times at the processor (\(capturedAtProcessor.map(\.reference)))")
            }
            let refunded = mine.filter { $0.operation == .refund && $0.status == .approved }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            let settledOrUnsure = machine.refunds.filter { $0.status == .succeeded || $0.status == .requiresMerchantAction }
                .reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            if refunded < intent.amountRefunded || refunded > settledOrUnsure {
                found.append("intent \(intent.id) has refunded \(intent.amountRefunded) (\(settledOrUnsure) with refunds awaiting an operator), the processor refunded \(refunded)")
            }
            let holding = machine.attempts.filter { attempt in
                let approvedHere = mine.contains { $0.reference == attempt.id && $0.operation == .authorize && $0.status == .approved }
                let released = mine.contains { $0.reference == attempt.id && $0.operation == .void && $0.status == .approved }
                return approvedHere && !released && attempt.status != .expired
            }
            if holding.count > 1 {
                found.append("intent \(intent.id) holds \(holding.count) live authorizations at the processor (\(holding.map(\.id)))")
            }
        }
        return found
    }
}
