import Foundation

/// The operator's way out of requires_merchant_action (DESIGN §4, docs/payment-service.md).
/// It asks the processor what it holds for the intent's current attempt, through the same
/// lookups reconciliation uses, and hands that to the machine with the resolution: the machine
/// refuses what the ledger contradicts unless it is forced, and records the operator's note,
/// name and the ledger's word either way. Then the executor runs what the resolution asks for
/// (the void of an authorization the processor still holds, an automatic capture).
struct OperatorResolver {
    let executor: PaymentExecutor
    let reconciler: PaymentReconciler

    /// Resolves intent `intentID`; see `PaymentService.resolve(_:as:note:actor:force:)`. The
    /// intent is recorded on `recoveryPoint` (an idempotency claim) with the resolution, so a
    /// request that takes the key over finishes what the resolution started (`resume`)
    /// instead of resolving again.
    nonisolated(nonsending) func resolve(
        _ intentID: String, as resolution: IntentResolution, note: String, actor: String, force: Bool, recoveryPoint: IdempotencyClaim?
    ) async throws -> ResolutionOutcome {
        let record = try OperatorRecord(note: note, actor: actor, forced: force)
        let machine = try await executor.loadMachine(intentID)
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
        let transition = try await executor.apply(
            .operatorResolved(.intent(resolution), recorded), to: intentID, expectedVersion: intent.version, known: machine,
            recording: intentID, on: recoveryPoint)
        let after = try await executor.execute(transition, card: nil)
        return ResolutionOutcome(outcome: PaymentOutcome(after, attemptID: attemptID), resolution: resolution, record: recorded)
    }

    /// Where a resolution whose run failed after recording it stands now: the call it started
    /// (a void), if still in flight, is looked up, and the resolution is read back from the
    /// intent's history.
    nonisolated(nonsending) func resume(_ intentID: String) async throws -> ResolutionOutcome {
        let after = try await reconciler.resume(intentID: intentID)
        guard let details = try await executor.details(intentID) else { throw PaymentStoreError(reason: .intentNotFound(intentID)) }
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
    nonisolated(nonsending) func processorHolding(attemptID: String) async -> ProcessorHolding {
        let processor = executor.processor
        let timeout = executor.configuration.processorTimeout
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
