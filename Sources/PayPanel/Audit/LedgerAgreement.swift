/// Compares what the processor did (its ledger, as `ProcessorEffect`s) with what the payments
/// database believes, the way an auditor would. The "exactly once" check of the crash and
/// concurrency soaks (through `PaymentsAudit`) and of the checkout tests:
///
/// - every processor operation belongs to exactly one stored attempt, every processor refund
///   to a stored refund of the same attempt; attempt and refund ids are unique;
/// - each attempt was authorized at most once, for its amount and card, captured at most once,
///   never both captured and voided, and its state tells the processor's story: an approval is
///   never lost (nor a capture or a void), a decline carries the processor's code, a challenge
///   waits for its completion, a voided attempt was voided;
/// - each refund is at most one processor refund, for its amount, with a matching outcome;
/// - for each intent the captured and refunded totals agree (refunds awaiting an operator may
///   have gone through), no more is refunded than captured, at most one attempt is captured
///   and at most one authorization still holds money.
///
/// `settled: true` asks for the state after reconciliation: nothing in flight, every answer
/// recorded. `settled: false` (in the middle of a flow) also accepts what a call in flight can
/// explain: the answer to the attempt's call not recorded yet (an approval, a capture, a void,
/// a captured amount) and any outcome of a pending refund.
package struct LedgerAgreement {
    package let machines: [PaymentStateMachine]
    package let effects: [ProcessorEffect]
    /// After reconciliation (true), or possibly in the middle of a flow (false).
    package let settled: Bool

    /// A comparison of every stored intent (`machines`, with their attempts and refunds) with
    /// the processor's ledger (`effects`).
    package init(machines: [PaymentStateMachine], effects: [ProcessorEffect], settled: Bool) {
        self.machines = machines
        self.effects = effects
        self.settled = settled
    }

    /// Every disagreement, one sentence each; empty when the two sides agree.
    package func disagreements() -> [String] {
        var found: [String] = []
        var attemptOwners: [String: PaymentStateMachine] = [:]
        var refundOwners: [String: (machine: PaymentStateMachine, refund: Refund)] = [:]
        for machine in machines {
            for attempt in machine.attempts where attemptOwners.updateValue(machine, forKey: attempt.id) != nil {
                found.append("attempt id \(attempt.id) is used twice")
            }
            for refund in machine.refunds where refundOwners.updateValue((machine, refund), forKey: refund.id) != nil {
                found.append("refund id \(refund.id) is used twice")
            }
        }
        found += unownedOperations(attemptOwners: attemptOwners, refundOwners: refundOwners)

        // Refunds carry the attempt id as their reference too.
        let byReference = Dictionary(grouping: effects, by: \.reference)
        let byRefundReference = Dictionary(grouping: effects.filter { $0.operation == .refund }, by: { $0.refundReference ?? "" })
        for machine in machines {
            if settled && machine.intent.status == .processing {
                found.append("\(machine.intent.id) is still processing (\(machine.intent.inFlight.map { "\($0.call)" } ?? "?")) after reconciliation")
            }
            for attempt in machine.attempts {
                found += compare(attempt, of: machine, operations: (byReference[attempt.id] ?? []).filter { $0.operation != .refund })
            }
            for refund in machine.refunds {
                found += compare(refund, of: machine, operations: byRefundReference[refund.id] ?? [])
            }
            found += compareTotals(of: machine, approved: machine.attempts.flatMap { byReference[$0.id] ?? [] }.filter { $0.status == .approved })
        }
        return found
    }

    // MARK: - Ownership

    /// Processor operations no stored attempt or refund accounts for, and refunds made on
    /// another attempt than the stored refund's.
    private func unownedOperations(
        attemptOwners: [String: PaymentStateMachine], refundOwners: [String: (machine: PaymentStateMachine, refund: Refund)]
    ) -> [String] {
        var found: [String] = []
        for effect in effects {
            let operation = "processor \(effect.processorID): \(effect.operation.rawValue) \(effect.status.rawValue) of \(effect.amount)"
            guard effect.operation == .refund else {
                if attemptOwners[effect.reference] == nil {
                    let held = effect.operation == .authorize && effect.status == .approved
                    found.append("\(operation) for \(effect.reference) belongs to no attempt" + (held ? ": money held with no intent" : " (lost)"))
                }
                continue
            }
            guard let id = effect.refundReference, let (owner, refund) = refundOwners[id] else {
                let moved = effect.status == .approved || effect.status == .pending
                found.append(
                    "\(operation) on \(effect.reference) (refund \(effect.refundReference ?? "without an id")) belongs to no refund"
                        + (moved ? ": money refunded unrecorded" : ""))
                continue
            }
            if refund.attemptID != effect.reference || attemptOwners[effect.reference]?.intent.id != owner.intent.id {
                found.append("\(operation): refund \(id) of \(owner.intent.id) is on attempt \(refund.attemptID), the processor's on \(effect.reference)")
            }
        }
        return found
    }

    // MARK: - Totals

    /// The intent's totals against the processor's approved operations on its attempts.
    private func compareTotals(of machine: PaymentStateMachine, approved: [ProcessorEffect]) -> [String] {
        let intent = machine.intent
        let captures = approved.filter { $0.operation == .capture }
        let captured = captures.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        let refunded = approved.filter { $0.operation == .refund }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        var found: [String] = []

        // A capture in flight may have gone through already (its answer is what is unknown).
        var capturedHere: Set<Int64> = [intent.amountCaptured]
        if !settled, let call = intent.inFlight, call.kind == .capture { capturedHere.insert(call.amount) }
        if !capturedHere.contains(captured) || (intent.status == .succeeded && captures.isEmpty) {
            found.append("\(intent.id): captured \(intent.amountCaptured) here, \(captured) at the processor")
        }
        let capturedAttempts = Set(captures.map(\.reference)).sorted()
        if capturedAttempts.count > 1 {
            found.append("\(intent.id) was captured on \(capturedAttempts.count) attempts at the processor (\(capturedAttempts.joined(separator: ", ")))")
        }

        // Refunds waiting for an operator may have gone through; mid-flow, so may pending ones.
        func total(_ status: RefundStatus) -> Int64 {
            machine.refunds.filter { $0.status == status }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        }
        let awaitingOperator = total(.requiresMerchantAction)
        let pending = total(.pending)
        let mayHaveGoneThrough = awaitingOperator + (settled ? 0 : pending)
        if refunded < intent.amountRefunded || refunded > min(intent.amountRefunded, total(.succeeded)) + mayHaveGoneThrough {
            found.append(
                "\(intent.id): refunded \(intent.amountRefunded) here (\(awaitingOperator) awaiting an operator, \(pending) pending), \(refunded) at the processor")
        }
        if refunded > intent.amountCaptured {
            found.append("\(intent.id): the processor refunded \(refunded), more than the \(intent.amountCaptured) captured")
        }

        let holding = machine.attempts.filter { attempt in
            attempt.status != .expired && approved.contains { $0.reference == attempt.id && $0.operation == .authorize }
                && !approved.contains { $0.reference == attempt.id && $0.operation == .void }
        }
        if holding.count > 1 {
            found.append("\(intent.id) holds \(holding.count) live authorizations at the processor (\(holding.map(\.id).joined(separator: ", ")))")
        }
        return found
    }
}
