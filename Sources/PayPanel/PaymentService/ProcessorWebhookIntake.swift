import Foundation

/// The processor telling PayPanel what it decided later (a webhook), applied as the
/// reconciliation answer it is (docs/webhooks.md). Like `PaymentReconciler`, it runs on the
/// service's thread (`nonisolated(nonsending)`), holds no state, and writes only through the
/// executor's store and ledger.
struct ProcessorWebhookIntake {
    let executor: PaymentExecutor
    /// How long a call is left to its own caller before a webhook may settle it
    /// (`PaymentService.reconcileGrace`).
    let callerGrace: Duration

    private var store: any PaymentStore { executor.store }
    private var ledger: PaymentLedger { executor.ledger }
    private var clock: any WallClock { executor.clock }
    private static var source: String { PaymentService.processorWebhookSource }

    /// Applies a verified processor webhook. The event id goes into the inbox in the same
    /// transaction as the transition it causes, so a redelivery is a `.duplicate` and changes
    /// nothing. Each finding is matched with a call PayPanel is waiting on (an unknown outcome,
    /// a pending refund) and fed as `reconciliationFound`: exactly what the worker's lookup
    /// would feed, so whichever comes first settles the call and the other is refused by the
    /// machine (`callNotInFlight`) and changes nothing — the two can never conflict.
    nonisolated(nonsending) func apply(_ event: ProcessorWebhookEvent) async throws -> ProcessorWebhookResult {
        let now = clock.now()
        let awaiting = try ledger.callsAwaitingReconciliation(limit: 10_000)
        guard let finding = event.findings.first, event.findings.count == 1 else {
            // charge.refunded may carry several refunds: apply them one by one.
            if event.findings.count > 1 { return try await applyEach(event) }
            // About an object PayPanel did not create, or a type it does not act on: recorded as
            // ignored (a 2xx, so the processor does not deliver it again).
            return try recordIgnored(event, intentID: nil, reason: event.foreignObject ?? "PayPanel does not act on \(event.type)", at: now)
        }
        guard let (intentID, call) = Self.match(finding, in: awaiting) else {
            return try recordIgnored(event, intentID: nil, reason: "no call of PayPanel is waiting on this event's attempt or refund", at: now)
        }
        guard let outcome = Self.outcome(of: finding, for: call, type: event.type) else {
            return try recordIgnored(event, intentID: intentID, reason: "\(event.type) does not answer the \(call.operationName) in flight", at: now)
        }
        let machine = try await executor.loadMachine(intentID)
        if try isStillWithItsCaller(call, machine: machine, at: now) {
            return ProcessorWebhookResult(disposition: .deferred, intentID: intentID, reason: "the \(call.operationName) is still waiting for its own answer")
        }
        let applied: PaymentTransition? = try store.write { transaction in
            guard try ledger.recordInboxEvent(source: Self.source, eventID: event.id, intentID: intentID, at: now, in: transaction) else {
                return nil
            }
            do {
                return try ledger.apply(.reconciliationFound(call, outcome), to: intentID, expectedVersion: nil, at: now, in: transaction)
            } catch let rejection as PaymentRejection {
                // Settled meanwhile (the worker's lookup won): keep the inbox row, change nothing.
                _ = rejection
                return nil
            }
        }
        guard let transition = applied else {
            return try isInInbox(event.id)
                ? ProcessorWebhookResult(disposition: .duplicate, intentID: intentID, reason: nil)
                : ProcessorWebhookResult(disposition: .ignored, intentID: intentID, reason: "the call was settled meanwhile")
        }
        _ = try await executor.run(transition.executorWork, machine: transition.machine, card: nil)
        return ProcessorWebhookResult(disposition: .applied, intentID: intentID, reason: nil)
    }

    private nonisolated(nonsending) func applyEach(_ event: ProcessorWebhookEvent) async throws -> ProcessorWebhookResult {
        var last = ProcessorWebhookResult(disposition: .ignored, intentID: nil, reason: nil)
        for (index, finding) in event.findings.enumerated() {
            let single = ProcessorWebhookEvent(id: index == 0 ? event.id : "\(event.id)#\(index)", type: event.type, findings: [finding])
            let result = try await apply(single)
            if result.disposition == .applied || last.disposition != .applied { last = result }
        }
        return last
    }

    private func isInInbox(_ eventID: String) throws -> Bool {
        // recordInboxEvent is the only inbox query there is: inside a write that is rolled back.
        struct Probe: Error {}
        do {
            try store.write { transaction in
                let inserted = try ledger.recordInboxEvent(source: Self.source, eventID: eventID, intentID: nil, at: clock.now(), in: transaction)
                if inserted { throw Probe() }
            }
            return true
        } catch is Probe {
            return false
        }
    }

    private func recordIgnored(_ event: ProcessorWebhookEvent, intentID: String?, reason: String, at now: Date) throws -> ProcessorWebhookResult {
        // An intent id the store does not know cannot be referenced; the event id is what counts.
        let known = try intentID.flatMap { try ledger.intent($0)?.id }
        let inserted = try ledger.recordInboxEvent(source: Self.source, eventID: event.id, intentID: known, at: now)
        return ProcessorWebhookResult(disposition: inserted ? .ignored : .duplicate, intentID: intentID, reason: inserted ? reason : nil)
    }

    /// A call made a moment ago whose own request is still waiting for the processor: the
    /// answer is on its way to that request, which must stay the one to record it (the worker
    /// spares these calls for the same reason). Unknown outcomes and pending refunds are not.
    private func isStillWithItsCaller(_ call: ProcessorCall, machine: PaymentStateMachine, at now: Date) throws -> Bool {
        if case .refund(let refundID) = call {
            guard let refund = machine.refunds.first(where: { $0.id == refundID }) else { return false }
            return !refund.processorAccepted && now.timeIntervalSince(refund.updatedAt) < callerGrace.timeInterval
        }
        guard let inFlight = machine.intent.inFlight, inFlight.outcomeUnknownSince == nil else { return false }
        return now.timeIntervalSince(inFlight.startedAt) < callerGrace.timeInterval
    }

    /// The awaiting call a finding is about.
    static func match(_ finding: ProcessorWebhookEvent.Finding, in awaiting: [AwaitingCall]) -> (String, ProcessorCall)? {
        let reference: String = switch finding {
        case .paymentIntent(let attemptID, _, _, _, _, _, _, _): attemptID
        case .refund(let refundID, _, _, _, _): refundID
        }
        return awaiting.first { $0.call.reference == reference }.map { ($0.intentID, $0.call) }
    }

    /// The processor outcome a finding means for `call`, or nil when it does not answer it.
    static func outcome(of finding: ProcessorWebhookEvent.Finding, for call: ProcessorCall, type: String) -> ProcessorOutcome? {
        let failed = type == "payment_intent.payment_failed"
        switch finding {
        case .paymentIntent(_, let status, let amount, let capturable, let received, let processorID, let decline, let captureBefore):
            switch call {
            case .authorize, .completeChallenge:
                if status == "requires_capture" || status == "succeeded" {
                    let granted = status == "requires_capture" ? capturable : received
                    return .approved(ProcessorApproval(
                        amount: Amount(minorUnits: granted > 0 ? granted : amount.minorUnits, currency: amount.currency),
                        processorID: processorID, expiresAt: captureBefore))
                }
                return failed ? .declined(DeclineCode(decline ?? DeclineCode.genericDecline.rawValue)) : nil
            case .capture:
                if status == "succeeded" {
                    return .approved(ProcessorApproval(
                        amount: Amount(minorUnits: received > 0 ? received : amount.minorUnits, currency: amount.currency), processorID: processorID))
                }
                return failed ? .declined(DeclineCode(decline ?? DeclineCode.captureFailed.rawValue)) : nil
            case .void:
                return status == "canceled" ? .approved(ProcessorApproval(amount: amount, processorID: processorID)) : nil
            case .refund:
                return nil
            }
        case .refund(_, let status, let amount, let processorID, let reason):
            guard case .refund = call else { return nil }
            switch status {
            case "succeeded": return .approved(ProcessorApproval(amount: amount, processorID: processorID))
            case "failed", "canceled": return .declined(DeclineCode(reason ?? DeclineCode.refundFailed.rawValue))
            default: return nil
            }
        }
    }
}
