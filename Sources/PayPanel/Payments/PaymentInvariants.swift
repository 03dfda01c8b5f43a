/// The rules a payment intent obeys in every state (DESIGN §4). Tests assert them after every
/// transition; the ledger checks them again before it writes, so a bug can never store a
/// state that breaks them (the database's CHECK constraints are the last line).
package enum PaymentInvariants {
    /// Every rule `machine` breaks, as one sentence each; empty when it is sound.
    package static func violations(of machine: PaymentStateMachine) -> [String] {
        let intent = machine.intent
        var broken: [String] = []
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
            if !condition { broken.append(rule()) }
        }
        require(0 <= intent.amountCaptured && intent.amountCaptured <= intent.amountAuthorized,
                "0 ≤ captured (\(intent.amountCaptured)) ≤ authorized (\(intent.amountAuthorized))")
        require(intent.amountAuthorized <= intent.amount.minorUnits,
                "authorized (\(intent.amountAuthorized)) ≤ the intent's amount (\(intent.amount.minorUnits))")
        require(intent.amountRefunded >= 0 && intent.amountRefundPending >= 0, "refund totals are not negative")
        require(intent.amountRefunded + intent.amountRefundPending <= intent.amountCaptured,
                "pending (\(intent.amountRefundPending)) + succeeded (\(intent.amountRefunded)) refunds ≤ captured (\(intent.amountCaptured))")
        let succeeded = machine.refunds.filter { $0.status == .succeeded }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        let reserved = machine.refunds.filter { !$0.status.isFinal }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        require(succeeded == intent.amountRefunded, "amountRefunded (\(intent.amountRefunded)) = the succeeded refunds (\(succeeded))")
        require(reserved == intent.amountRefundPending, "amountRefundPending (\(intent.amountRefundPending)) = the unsettled refunds (\(reserved))")
        require(machine.refunds.allSatisfy { $0.amount.currency == intent.currency && $0.amount.minorUnits > 0 },
                "refunds are positive and in the intent's currency")
        require(machine.refunds.isEmpty || intent.status == .succeeded, "only a succeeded intent has refunds")
        require((intent.status == .processing) == (intent.inFlight != nil),
                "a processor call is in flight exactly when the status is processing")
        if intent.status == .requiresCapture {
            require(intent.amountCapturable > 0 && intent.captureBefore != nil, "requires_capture holds an uncaptured authorization with a deadline")
        }
        if intent.status == .succeeded { require(intent.amountCaptured > 0, "succeeded means something was captured") }
        if [.requiresPaymentMethod, .requiresAction, .requiresCapture, .processing].contains(intent.status) {
            require(intent.amountCaptured == 0, "nothing is captured before succeeded")
        }
        if intent.status == .canceled { require(intent.cancellationReason != nil, "a canceled intent says why") }
        if intent.status != .canceled && intent.status != .processing {
            require(intent.cancellationReason == nil, "only a canceled intent (or one being voided) has a cancellation reason")
        }
        require(intent.attemptCount == machine.attempts.count, "attemptCount (\(intent.attemptCount)) = the attempts (\(machine.attempts.count))")
        require(intent.attemptCount <= machine.policy.maximumAttempts, "no more attempts than the policy allows")
        require(intent.currentAttemptID == machine.attempts.last?.id, "the current attempt is the latest one")
        require(machine.attempts.allSatisfy { $0.amount == intent.amount }, "every attempt is for the intent's amount")
        require(machine.attempts.filter { $0.sheet?.isAwaitingAnswer == true }.count <= 1, "at most one sheet waits for an answer")
        if let operation = intent.inFlight {
            require(operation.attemptID == intent.currentAttemptID, "the call in flight is for the current attempt")
            require(operation.amount > 0, "the call in flight moves a positive amount")
        }
        return broken
    }

    /// Every rule the step from `before` to `after` breaks: terminal states never change,
    /// the version rises by one, money only moves forward.
    package static func violations(from before: PaymentStateMachine, to after: PaymentStateMachine) -> [String] {
        var broken = violations(of: after)
        let was = before.intent
        let now = after.intent
        if was.status.isTerminal && now.status != was.status {
            broken.append("a \(was.status) intent never changes state (it became \(now.status))")
        }
        if was.status == .succeeded && now.amountCaptured != was.amountCaptured {
            broken.append("a succeeded intent's captured amount never changes")
        }
        if now.version != was.version + 1 { broken.append("each transition raises the version by one") }
        if now.amountRefunded < was.amountRefunded { broken.append("succeeded refunds are never undone") }
        if now.id != was.id || now.amount != was.amount || now.captureMethod != was.captureMethod || now.createdAt != was.createdAt {
            broken.append("the intent's id, amount, capture method and creation time never change")
        }
        for refund in before.refunds where refund.status.isFinal {
            if after.refunds.first(where: { $0.id == refund.id })?.status != refund.status {
                broken.append("refund \(refund.id) was final and changed")
            }
        }
        if !before.attempts.allSatisfy({ old in after.attempts.contains { $0.id == old.id } }) {
            broken.append("attempts are never removed")
        }
        return broken
    }
}
