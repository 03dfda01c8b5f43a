extension LedgerAgreement {
    /// One attempt against the processor's authorizations, captures and voids of it.
    func compare(_ attempt: Attempt, of machine: PaymentStateMachine, operations: [ProcessorEffect]) -> [String] {
        let intent = machine.intent
        let name = "\(intent.id) attempt \(attempt.id) (\(attempt.status.rawValue))"
        let authorizations = operations.filter { $0.operation == .authorize }
        let captures = operations.filter { $0.operation == .capture && $0.status == .approved }
        let voids = operations.filter { $0.operation == .void && $0.status == .approved }
        // An approval anywhere counts: it holds money whatever else the processor answered.
        let approved = authorizations.contains { $0.status == .approved }
        let answer = approved ? ProcessorEffect.Status.approved.rawValue : authorizations.first?.status.rawValue ?? "missing"
        // Mid-flow, the answer to the attempt's call in flight may not be recorded yet.
        let unrecordedAnswer = (settled || intent.inFlight?.attemptID != attempt.id) ? nil : intent.inFlight?.kind
        // The program could not decide and an operator compares the two sides: mid-flow the
        // attempt's state is left to them; once settled, money held, moved or lost without the
        // attempt knowing is still named (only the checks of how the program would have gone on
        // are left to the operator).
        let operatorDecides = intent.status == .requiresMerchantAction && intent.currentAttemptID == attempt.id
        var found: [String] = []

        if authorizations.count > 1 { found.append("\(name) was authorized \(authorizations.count) times at the processor") }
        if captures.count > 1 { found.append("\(name) was captured \(captures.count) times at the processor") }
        if !captures.isEmpty && !voids.isEmpty { found.append("\(name) was both captured and voided at the processor") }
        for authorization in authorizations {
            if authorization.amount != attempt.amount {
                found.append("\(name): the processor authorized \(authorization.amount), the attempt asked \(attempt.amount)")
            }
            if authorization.last4 != attempt.card.last4 {
                found.append("\(name): the processor's card ends \(authorization.last4 ?? "?"), the attempt's \(attempt.card.last4)")
            }
        }
        if operatorDecides && !settled { return found }

        switch attempt.status {
        case .authorizing:
            if approved && unrecordedAnswer != .authorize && unrecordedAnswer != .completeChallenge {
                found.append("\(name): APPROVED at the processor but still authorizing here (an approval not recorded)")
            } else if settled && !operatorDecides {
                found.append("\(name) is still authorizing after reconciliation (\(answer) at the processor)")
            }
            if intent.inFlight?.attemptID != attempt.id && !operatorDecides {
                found.append("\(name) is authorizing but no call is in flight for it")
            }
        case .requiresAction:
            if approved {
                found.append("\(name): APPROVED at the processor but waiting for a challenge here")
            } else if authorizations.first?.status != .challengeRequired && !operatorDecides {
                found.append("\(name): the processor's authorization is \(answer), not challenge_required")
            }
        case .authorized:
            if !approved { found.append("\(name): authorized here, \(answer) at the processor") }
            if !captures.isEmpty && unrecordedAnswer != .capture { found.append("\(name): captured at the processor but only authorized here") }
            if !voids.isEmpty && unrecordedAnswer != .void && !operatorDecides {
                found.append("\(name): voided at the processor but still authorized here")
            }
        case .captured:
            if !approved { found.append("\(name): captured here, the processor's authorization is \(answer)") }
            if captures.isEmpty || (captures[0].amount.minorUnits != intent.amountCaptured && !operatorDecides) {
                let atProcessor = captures.first.map { "\($0.amount.minorUnits)" } ?? "nothing"
                found.append("\(name): captured \(intent.amountCaptured) here, \(atProcessor) at the processor")
            }
        case .voided:
            if !approved || voids.isEmpty { found.append("\(name): voided here but the processor holds no approved void of an approved authorization") }
        case .expired:
            if !approved && !operatorDecides { found.append("\(name): expired here, the processor's authorization is \(answer)") }
            if !captures.isEmpty { found.append("\(name): expired here but captured at the processor") }
        case .failed:
            // A failed attempt holds no money: the processor declined it, never processed it,
            // or its 3-D Secure challenge ended here (the processor still waits for it).
            if approved { found.append("\(name): failed here but APPROVED at the processor (an approval lost)") }
            found += compareDecline(of: attempt, name: name, authorization: authorizations.first, operatorDecides: operatorDecides)
        }

        // Money the attempt's state cannot have moved (both at once: named above).
        if [.authorizing, .requiresAction, .failed].contains(attempt.status) && !captures.isEmpty {
            found.append("\(name): captured at the processor")
        }
        if [.authorizing, .requiresAction, .failed, .captured].contains(attempt.status) && !voids.isEmpty && captures.isEmpty
            && intent.status != .requiresMerchantAction
        {
            found.append("\(name): voided at the processor")
        }
        return found
    }

    /// A declined attempt carries the processor's decline code.
    private func compareDecline(of attempt: Attempt, name: String, authorization: ProcessorEffect?, operatorDecides: Bool) -> [String] {
        guard let code = attempt.failure?.declineCode, authorization?.declineCode != code, !operatorDecides else { return [] }
        // Malformed requests are refused without an entry.
        if authorization == nil && [DeclineCode.invalidRequest, .invalidAmount].contains(code) { return [] }
        let atProcessor = authorization?.declineCode.map { "\($0)" } ?? authorization?.status.rawValue ?? "nothing"
        return ["\(name): declined \(code) here, \(atProcessor) at the processor"]
    }

    /// One refund against the processor's refund of the same id.
    func compare(_ refund: Refund, of machine: PaymentStateMachine, operations: [ProcessorEffect]) -> [String] {
        let name = "\(machine.intent.id) refund \(refund.id) (\(refund.status.rawValue))"
        var found: [String] = []
        if operations.count > 1 { found.append("\(name) is \(operations.count) refunds at the processor") }
        for operation in operations where operation.amount != refund.amount {
            found.append("\(name): \(refund.amount) here, \(operation.amount) at the processor")
        }
        // The outcomes each state allows at the processor, and whether one must be there.
        let (allowed, required): (Set<ProcessorEffect.Status>, Bool) =
            switch refund.status {
            case .succeeded: ([.approved], true)
            // Refused before the processor (or never sent) leaves no entry.
            case .failed: ([.declined], false)
            // Mid-flow the call's answer may not be recorded yet; settled, the processor still
            // finishes it (an asynchronous refund).
            case .pending: settled ? ([.pending], true) : (Set(ProcessorEffect.Status.allCases), false)
            // An operator decides; the amount stays reserved either way.
            case .requiresMerchantAction: ([.approved, .declined], false)
            }
        func mismatch(_ atProcessor: ProcessorEffect.Status?) -> String {
            let shown = atProcessor?.rawValue ?? "missing"
            switch refund.status {
            case .pending: return "\(name): still pending after reconciliation, \(shown) at the processor"
            case .failed where atProcessor == .approved || atProcessor == .pending:
                return "\(name): failed here but \(shown) at the processor (money refunded unrecorded)"
            default: return "\(name): \(refund.status.rawValue) here, \(shown) at the processor"
            }
        }
        if required && operations.isEmpty { found.append(mismatch(nil)) }
        for operation in operations where !allowed.contains(operation.status) { found.append(mismatch(operation.status)) }
        return found
    }
}
