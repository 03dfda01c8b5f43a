import Foundation

// The operator's way out of requires_merchant_action (DESIGN §4, docs/payment-service.md).
// The service asks the processor what it holds for the intent's current attempt, through the
// same lookups reconciliation uses, and hands that to the machine with the resolution: the
// machine refuses what the ledger contradicts unless it is forced, and records the operator's
// note, name and the ledger's word either way. Then the service runs what the resolution asks
// for (the void of an authorization the processor still holds, an automatic capture).
extension PaymentService {
    /// Resolves intent `intentID`, which must be in `requires_merchant_action`, as `resolution`,
    /// by `actor` because of `note`.
    ///
    /// The current attempt is looked up at the processor first (its authorization, then its
    /// capture and void). Unless `force` is set, a resolution the ledger contradicts is refused
    /// (`resolution_contradicts_processor`, saying what the processor holds and which
    /// resolutions it allows): `succeeded` needs a capture there, `authorized` a live
    /// authorization, `retry` no money held, and none is accepted when the processor cannot be
    /// asked. With `force` the resolution is applied anyway and recorded as forced, with what
    /// the processor said.
    ///
    /// The resolution is applied at the version the state was checked at: an intent that moved
    /// meanwhile is refused (`version_conflict`). Throws `PaymentInputError` for a note or a
    /// name that cannot be kept (empty, too long, control characters), before anything is asked.
    public func resolve(
        _ intentID: String, as resolution: IntentResolution, note: String, actor: String, force: Bool = false
    ) async throws -> ResolutionOutcome {
        try await resolve(intentID, as: resolution, note: note, actor: actor, force: force, recoveryPoint: nil)
    }

    /// `resolve`, recording the intent on `recoveryPoint` (an idempotency claim) with the
    /// resolution, so a request that takes the key over finishes what the resolution started
    /// (`resumeResolution`) instead of resolving again.
    package func resolve(
        _ intentID: String, as resolution: IntentResolution, note: String, actor: String, force: Bool, recoveryPoint: IdempotencyClaim?
    ) async throws -> ResolutionOutcome {
        let record = try OperatorRecord(note: note, actor: actor, forced: force)
        let machine = try loadMachine(intentID)
        let intent = machine.intent
        guard intent.status == .requiresMerchantAction else {
            let reason: PaymentRejection.Reason = intent.status.isTerminal
                ? .terminal(intent.status) : .notAllowed(event: "operator_resolved", status: intent.status)
            throw PaymentRejection(intentID: intentID, reason: reason)
        }
        guard let attemptID = intent.currentAttemptID else {
            throw PaymentRejection(intentID: intentID, reason: .invalidResolution("it has no attempt to resolve"))
        }
        let recorded = record.with(processor: await processorHolding(attemptID: attemptID))
        let transition = try await apply(
            .operatorResolved(.intent(resolution), recorded), to: intentID, expectedVersion: intent.version, known: machine,
            recording: intentID, on: recoveryPoint)
        let after = try await execute(transition, card: nil)
        return ResolutionOutcome(outcome: outcome(after, attemptID: attemptID), resolution: resolution, record: recorded)
    }

    /// Where a resolution whose run failed after recording it stands now: the call it started
    /// (a void), if still in flight, is looked up, and the resolution is read back from the
    /// intent's history.
    package func resumeResolution(_ intentID: String) async throws -> ResolutionOutcome {
        let after = try await resume(intentID: intentID)
        guard let details = try ledger.details(intentID) else { throw PaymentStoreError(reason: .intentNotFound(intentID)) }
        let decoder = StoredEventDecoder(storedAttempts: details.attempts)
        for record in details.events.reversed() where record.type == "operator_resolved" {
            if case .operatorResolved(.intent(let resolution), let operatorRecord) = try decoder.event(record) {
                return ResolutionOutcome(outcome: after, resolution: resolution, record: operatorRecord)
            }
        }
        throw PaymentRejection(intentID: intentID, reason: .invalidResolution("its history holds no resolution to resume"))
    }

    /// What the processor holds for `attemptID`: its authorization, and when that was approved
    /// its capture and (if not captured) its void. Lookups that get no answer make it unknown.
    func processorHolding(attemptID: String) async -> ProcessorHolding {
        let timeout = configuration.processorTimeout
        let authorization = await processor.lookup(reference: attemptID, operation: .authorize, timeout: timeout)
        guard case .found(.approved) = authorization else {
            return .from(authorization: authorization, capture: nil, void: nil)
        }
        let capture = await processor.lookup(reference: attemptID, operation: .capture, timeout: timeout)
        if case .found(.approved) = capture {
            return .from(authorization: authorization, capture: capture, void: nil)
        }
        let void = await processor.lookup(reference: attemptID, operation: .void, timeout: timeout)
        return .from(authorization: authorization, capture: capture, void: void)
    }
}

/// What `PaymentService.resolve` did: the intent afterwards (with the attempt it resolved),
/// the resolution, and the record kept in the history (note, operator, forced, what the
/// processor held).
public struct ResolutionOutcome: Sendable, JSONRepresentable {
    /// The intent and its current attempt after the resolution and the work it led to.
    public let outcome: PaymentOutcome
    public let resolution: IntentResolution
    /// As recorded, with what the processor's ledger held.
    public let record: OperatorRecord

    /// The intent's status after the resolution.
    public var status: PaymentStatus { outcome.intent.status }

    /// What the processor said, as a clause ("the processor holds an authorization of …").
    public var processorSays: String {
        let attemptID = outcome.attempt?.id ?? outcome.intent.currentAttemptID ?? "the attempt"
        return (record.processor ?? .unknown(reason: "the processor was not asked")).summary(attemptID: attemptID)
    }

    /// `PaymentOutcome`'s JSON with `"resolution": {"as", "note", "operator", "forced",
    /// "processor": {"holding", …}, "processorSays"}` added.
    public var json: JSONValue {
        let resolutionJSON = JSONValue.orderedObject([
            ("as", .string(resolution.rawValue)), ("note", .string(record.note)), ("operator", .string(record.actor)),
            ("forced", .bool(record.forced)), ("processor", record.processor?.json ?? .null), ("processorSays", .string(processorSays)),
        ])
        guard case .object(var object) = outcome.json else { return outcome.json }
        object["resolution"] = resolutionJSON
        return .object(object)
    }
}
