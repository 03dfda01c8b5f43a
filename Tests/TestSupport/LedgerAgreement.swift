import Foundation
import MockProcessor
import PayPanel

/// Compares the payments database with the mock processor's ledger the way an auditor would:
/// every processor operation belongs to exactly one attempt or refund, no approval is lost,
/// nothing is authorized, captured or refunded twice, and both sides tell the same story.
///
/// `settled: true` asks for the state after reconciliation — nothing in flight, every answer
/// recorded. `settled: false` (in the middle of a flow) accepts what a call in flight or an
/// unknown outcome can explain: an approval the intent has not heard of yet, a capture whose
/// answer was lost.
public enum LedgerAgreement {
    /// Every disagreement between `payments` (each intent with its attempts and refunds) and
    /// the processor's `ledger`, one sentence each; empty when they agree. The DESIGN §4
    /// invariants of every intent are checked too.
    public static func disagreements(payments: [PaymentStateMachine], ledger: [LedgerEntry], settled: Bool) -> [String] {
        var problems: [String] = []
        var attemptOwners: [String: PaymentStateMachine] = [:]
        var refundOwners: [String: PaymentStateMachine] = [:]
        for machine in payments {
            problems += PaymentInvariants.violations(of: machine).map { "\(machine.intent.id): invariant broken: \($0)" }
            if settled && machine.intent.status == .processing {
                problems.append("\(machine.intent.id) is still processing (\(machine.intent.inFlight.map { "\($0.call)" } ?? "?")) after reconciliation")
            }
            for attempt in machine.attempts {
                if attemptOwners.updateValue(machine, forKey: attempt.id) != nil { problems.append("attempt id \(attempt.id) is used twice") }
            }
            for refund in machine.refunds {
                if refundOwners.updateValue(machine, forKey: refund.id) != nil { problems.append("refund id \(refund.id) is used twice") }
            }
        }
        for entry in ledger {
            if entry.operation == .refund {
                guard let reference = entry.refundReference, let owner = refundOwners[reference] else {
                    problems.append("processor \(entry.processorID): refund \(entry.refundReference ?? "?") of \(entry.amount) belongs to no refund")
                    continue
                }
                if owner.refunds.first(where: { $0.id == reference })?.attemptID != entry.reference {
                    problems.append("processor \(entry.processorID): refund \(reference) is on \(entry.reference), not on the refund's attempt")
                }
            } else if attemptOwners[entry.reference] == nil {
                problems.append("processor \(entry.processorID): \(entry.operation) \(entry.status) of \(entry.amount) for \(entry.reference) belongs to no attempt (lost)")
            }
        }
        let byReference = Dictionary(grouping: ledger.filter { $0.operation != .refund }, by: \.reference)
        let refundsByReference = Dictionary(grouping: ledger.filter { $0.operation == .refund }, by: { $0.refundReference ?? "" })
        for machine in payments {
            for attempt in machine.attempts {
                problems += compare(attempt, of: machine, entries: byReference[attempt.id] ?? [], settled: settled)
            }
            for refund in machine.refunds {
                problems += compare(refund, of: machine, entries: refundsByReference[refund.id] ?? [], settled: settled)
            }
            problems += compareTotals(machine, ledger: ledger, settled: settled)
        }
        return problems
    }

    /// Opens both files with fresh connections (as another process would) and compares them.
    public static func disagreements(databasePath: String, ledgerPath: String, now: Date, settled: Bool) throws -> [String] {
        let clock = ManualClock(now)
        let repository = PaymentRepository(database: try Database.openMigrated(path: databasePath, set: .main, clock: clock))
        var machines: [PaymentStateMachine] = []
        var ids: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) { ids.append($0.id) }
        for id in ids {
            if let machine = try repository.loadMachine(id) { machines.append(machine) }
        }
        let ledger = try ProcessorLedger(path: ledgerPath, clock: clock).entries(now: now)
        return disagreements(payments: machines, ledger: ledger, settled: settled)
    }

    // MARK: - One attempt

    private static func compare(_ attempt: Attempt, of machine: PaymentStateMachine, entries: [LedgerEntry], settled: Bool) -> [String] {
        let name = "\(machine.intent.id) attempt \(attempt.id) (\(attempt.status.rawValue))"
        let authorizations = entries.filter { $0.operation == .authorize }
        let approvedCaptures = entries.filter { $0.operation == .capture && $0.status == .approved }
        let approvedVoids = entries.filter { $0.operation == .void && $0.status == .approved }
        var problems: [String] = []
        if authorizations.count > 1 { problems.append("\(name) was authorized \(authorizations.count) times at the processor") }
        if approvedCaptures.count > 1 { problems.append("\(name) was captured \(approvedCaptures.count) times") }
        if !approvedCaptures.isEmpty && !approvedVoids.isEmpty { problems.append("\(name) was both captured and voided") }
        let authorization = authorizations.first
        if let authorization {
            if authorization.amount != attempt.amount { problems.append("\(name): the processor authorized \(authorization.amount), the attempt asked \(attempt.amount)") }
            if authorization.last4 != attempt.card.last4 { problems.append("\(name): the processor's card ends \(authorization.last4 ?? "?"), the attempt's \(attempt.card.last4)") }
        }
        let approved = authorization?.status == .approved
        let inFlight = machine.intent.inFlight?.attemptID == attempt.id ? machine.intent.inFlight : nil
        let unsettledHere = !settled && inFlight != nil
        if machine.intent.status == .requiresMerchantAction && machine.intent.currentAttemptID == attempt.id {
            return problems  // the program could not decide: an operator compares the two sides
        }

        switch attempt.status {
        case .authorizing:
            if settled { problems.append("\(name) is still authorizing after reconciliation") }
            if inFlight == nil { problems.append("\(name) is authorizing but no call is in flight for it") }
        case .requiresAction:
            if authorization?.status != .challengeRequired { problems.append("\(name): the processor's authorization is \(authorization?.status.rawValue ?? "missing"), not challenge_required") }
        case .authorized:
            if !approved { problems.append("\(name): authorized here, \(authorization?.status.rawValue ?? "unknown") at the processor") }
            if !approvedCaptures.isEmpty && !(unsettledHere && inFlight?.kind == .capture) { problems.append("\(name): captured at the processor but only authorized here") }
            if !approvedVoids.isEmpty && !(unsettledHere && inFlight?.kind == .void) { problems.append("\(name): voided at the processor but still authorized here") }
        case .captured:
            if !approved { problems.append("\(name): captured here, the processor's authorization is \(authorization?.status.rawValue ?? "missing")") }
            if approvedCaptures.first?.amount.minorUnits != machine.intent.amountCaptured {
                problems.append("\(name): captured \(machine.intent.amountCaptured) here, \(approvedCaptures.first.map { "\($0.amount.minorUnits)" } ?? "nothing") at the processor")
            }
        case .voided:
            if !approved || approvedVoids.isEmpty { problems.append("\(name): voided here but the processor holds no approved void of an approved authorization") }
        case .expired:
            if !approved { problems.append("\(name): expired here, the processor's authorization is \(authorization?.status.rawValue ?? "missing")") }
            if !approvedCaptures.isEmpty { problems.append("\(name): expired here but captured at the processor") }
        case .failed:
            // A failed attempt holds no money: the processor declined it, never processed it,
            // or its 3-D Secure challenge ended here (the processor still waits for it).
            if approved { problems.append("\(name): failed here but APPROVED at the processor (an approval lost)") }
            // Malformed requests are refused without an entry.
            let refusedUnrecorded = authorization == nil && [DeclineCode.invalidRequest, .invalidAmount].contains(attempt.failure?.declineCode)
            if let code = attempt.failure?.declineCode, authorization?.declineCode != code, !refusedUnrecorded {
                problems.append("\(name): declined \(code) here, \(authorization?.declineCode.map { "\($0)" } ?? authorization?.status.rawValue ?? "nothing") at the processor")
            }
        }
        return problems
    }

    // MARK: - One refund

    private static func compare(_ refund: Refund, of machine: PaymentStateMachine, entries: [LedgerEntry], settled: Bool) -> [String] {
        let name = "\(machine.intent.id) refund \(refund.id) (\(refund.status.rawValue))"
        guard entries.count <= 1 else { return ["\(name) is \(entries.count) refunds at the processor"] }
        let entry = entries.first
        var problems: [String] = []
        if let entry, entry.amount != refund.amount { problems.append("\(name): \(refund.amount) here, \(entry.amount) at the processor") }
        switch refund.status {
        case .succeeded:
            if entry?.status != .approved { problems.append("\(name): succeeded here, \(entry?.status.rawValue ?? "missing") at the processor") }
        case .failed:
            if entry?.status == .approved || entry?.status == .pending {
                problems.append("\(name): failed here but \(entry?.status.rawValue ?? "") at the processor (money refunded unrecorded)")
            }
        case .pending:
            if settled && entry?.status != .pending {
                problems.append("\(name): still pending after reconciliation, \(entry?.status.rawValue ?? "missing") at the processor")
            }
        case .requiresMerchantAction:
            break  // an operator decides; the amount stays reserved either way
        }
        return problems
    }

    // MARK: - Totals

    private static func compareTotals(_ machine: PaymentStateMachine, ledger: [LedgerEntry], settled: Bool) -> [String] {
        let attemptIDs = Set(machine.attempts.map(\.id))
        let mine = ledger.filter { attemptIDs.contains($0.reference) }
        let captured = mine.filter { $0.operation == .capture && $0.status == .approved }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        let refunded = mine.filter { $0.operation == .refund && $0.status == .approved }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        var problems: [String] = []
        // A capture in flight may have gone through already (its answer is what is unknown).
        var capturedHere: Set<Int64> = [machine.intent.amountCaptured]
        if !settled, let capture = machine.intent.inFlight, capture.kind == .capture { capturedHere.insert(capture.amount) }
        if !capturedHere.contains(captured) {
            problems.append("\(machine.intent.id): captured \(machine.intent.amountCaptured) here, \(captured) at the processor")
        }
        // Refunds not final here (pending, or waiting for an operator) may have gone through.
        let unsettled = machine.refunds.filter { !$0.status.isFinal }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        if refunded < machine.intent.amountRefunded || refunded > machine.intent.amountRefunded + unsettled {
            problems.append("\(machine.intent.id): refunded \(machine.intent.amountRefunded) here (\(unsettled) unsettled), \(refunded) at the processor")
        }
        if refunded > machine.intent.amountCaptured {
            problems.append("\(machine.intent.id): the processor refunded \(refunded), more than the \(machine.intent.amountCaptured) captured")
        }
        return problems
    }
}
