import Foundation
import PayPanel

/// Capture, void, refund and lookup. Each write is one transaction in which the rules are
/// checked against the rows as they are now, so two processes cannot both capture, or refund
/// more than was captured between them. A request for an unknown authorization leaves no entry;
/// a refused request about a known one is recorded as a declined entry, as a processor keeps
/// failed attempts on the charge.
extension ProcessorLedger {
    /// Captures once (Stripe-like): any amount up to the authorized one; the rest is released.
    /// A retry of the capture that went through, with the same amount, gets its answer again.
    func capture(_ request: CaptureRequest, now: Date) throws -> ProcessorAnswer {
        try transaction(now: now) {
            guard let authorization = try authorization(request.reference, now: now) else {
                return .outcome(.declined(.authorizationNotFound))
            }
            let captured = try entries(.capture, of: request.reference, now: now).first { $0.status == .approved }
            if let captured, captured.amount == request.amount { return .outcome(captured.outcome) }
            let trigger = authorization.trigger.flatMap(MockTrigger.init(name:))
            var decline = try captureRuleViolation(request, authorization: authorization, alreadyCaptured: captured != nil, now: now)
            if decline == nil, trigger == .captureFail || trigger == .captureFailLate { decline = .captureFailed }
            let entry = try append(
                NewEntry(
                    reference: request.reference, operation: .capture, amount: request.amount,
                    result: decline.map(ProcessedResult.declined) ?? .approved, network: authorization.network,
                    last4: authorization.last4),
                now: now)
            // CAPTURE_TIMEOUT: the capture went through but its answer is lost.
            if trigger == .captureTimeout, entry.status == .approved { return .none }
            // CAPTURE_FAIL_LATE: the capture failed, and that answer is lost too.
            if trigger == .captureFailLate, entry.declineCode == .captureFailed { return .none }
            return .outcome(entry.outcome)
        }
    }

    private func captureRuleViolation(
        _ request: CaptureRequest, authorization: LedgerEntry, alreadyCaptured: Bool, now: Date
    ) throws -> DeclineCode? {
        if authorization.status != .approved { return .authorizationNotApproved }
        if try hasApproved(.void, of: request.reference, now: now) { return .alreadyVoided }
        if alreadyCaptured { return .alreadyCaptured }
        if let expiresAt = authorization.expiresAt, now >= expiresAt { return .authorizationExpired }
        if request.amount.currency != authorization.amount.currency { return .currencyMismatch }
        if request.amount.minorUnits <= 0 { return .invalidAmount }
        if request.amount.minorUnits > authorization.amount.minorUnits { return .amountTooLarge }
        return nil
    }

    /// Releases an approved authorization that was not captured (also after it expired: the
    /// release is harmless). A second void gets the first one's answer.
    func void(reference: String, now: Date) throws -> ProcessorAnswer {
        try transaction(now: now) {
            guard let authorization = try authorization(reference, now: now) else {
                return .outcome(.declined(.authorizationNotFound))
            }
            if let voided = try entries(.void, of: reference, now: now).first(where: { $0.status == .approved }) {
                return .outcome(voided.outcome)
            }
            var decline: DeclineCode?
            if authorization.status != .approved {
                decline = .authorizationNotApproved
            } else if try hasApproved(.capture, of: reference, now: now) {
                decline = .alreadyCaptured
            } else if authorization.trigger.flatMap(MockTrigger.init(name:)) == .voidFail {
                decline = .voidFailed
            }
            let entry = try append(
                NewEntry(
                    reference: reference, operation: .void, amount: authorization.amount,
                    result: decline.map(ProcessedResult.declined) ?? .approved, network: authorization.network,
                    last4: authorization.last4),
                now: now)
            return .outcome(entry.outcome)
        }
    }

    /// Refunds part or all of a capture, as often as wanted, never more in total than was
    /// captured (pending refunds count). `refundReference` is the idempotency key: reused with
    /// the same authorization and amount it replays the first answer, otherwise it is refused.
    func refund(_ request: RefundRequest, now: Date, configuration: MockProcessorConfiguration) throws -> ProcessorAnswer {
        guard Self.isValidReference(request.refundReference) else { return .outcome(.declined(.invalidRequest)) }
        return try transaction(now: now) {
            if let existing = try refund(request.refundReference, now: now) {
                let sameRequest = existing.reference == request.reference && existing.amount == request.amount
                return .outcome(sameRequest ? existing.outcome : .declined(.idempotencyKeyReused))
            }
            guard let authorization = try authorization(request.reference, now: now) else {
                return .outcome(.declined(.authorizationNotFound))
            }
            let trigger = authorization.trigger.flatMap(MockTrigger.init(name:))
            var decline = try refundRuleViolation(request, now: now)
            if decline == nil, trigger == .refundFail { decline = .refundFailed }
            let settlesAt = decline == nil && trigger == .refundAsync
                ? now.addingTimeInterval(configuration.refundSettlementDelay.timeInterval) : nil
            let entry = try append(
                NewEntry(
                    reference: request.reference, operation: .refund, refundReference: request.refundReference,
                    amount: request.amount, result: decline.map(ProcessedResult.declined) ?? .approved,
                    network: authorization.network, last4: authorization.last4, settlesAt: settlesAt),
                now: now)
            return .outcome(entry.outcome)
        }
    }

    private func refundRuleViolation(_ request: RefundRequest, now: Date) throws -> DeclineCode? {
        guard let captured = try entries(.capture, of: request.reference, now: now).first(where: { $0.status == .approved })
        else {
            return try hasApproved(.void, of: request.reference, now: now) ? .alreadyVoided : .notCaptured
        }
        if request.amount.currency != captured.amount.currency { return .currencyMismatch }
        if request.amount.minorUnits <= 0 { return .invalidAmount }
        // Pending refunds count: they will succeed. Checked inside this write, so two
        // concurrent refunds cannot both fit into the same remainder.
        let refunded = try database.queryFirst(
            """
            SELECT COALESCE(SUM(amount), 0) FROM operations
            WHERE reference = ? AND operation = 'refund' AND status IN ('approved', 'pending')
            """, [request.reference]) { $0.int64(0) } ?? 0
        let (total, overflow) = refunded.addingReportingOverflow(request.amount.minorUnits)
        if overflow || total > captured.amount.minorUnits { return .amountTooLarge }
        return nil
    }

    private func hasApproved(_ operation: ProcessorOperation, of reference: String, now: Date) throws -> Bool {
        try entries(operation, of: reference, now: now).contains { $0.status == .approved }
    }

    /// What the processor knows: the authorization of an attempt id, its capture or void (the
    /// approved one, else the latest refused one), or the refund with that refund reference.
    func lookup(reference: String, operation: ProcessorOperation, now: Date) throws -> LookupResult {
        try database.read {
            let entry: LedgerEntry?
            switch operation {
            case .authorize:
                entry = try authorization(reference, now: now)
            case .capture, .void:
                let all = try entries(operation, of: reference, now: now)
                entry = all.first { $0.status == .approved } ?? all.last
            case .refund:
                entry = try refund(reference, now: now)
            }
            return entry.map { .found($0.outcome) } ?? .notFound
        }
    }
}
