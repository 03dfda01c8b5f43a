import Foundation

// Finishing what a timeout, a 500 or a crash left open, and running due timers.
extension PaymentService {
    /// Looks up, now, every call still waiting for an answer (whatever its retry schedule),
    /// records what the processor says, runs what that leads to (a capture, a reversal, a call
    /// sent again), then fires every timer due at the service's clock (authorization expiry,
    /// abandonment, sheet deadlines, scheduled lookups). Safe to run at any time, from several
    /// processes.
    ///
    /// One intent that cannot be reconciled (a database error, an answer that makes no sense)
    /// does not stop the others: its error is in `failures`, and the rest goes on.
    ///
    /// `sparingCallsYoungerThan` leaves alone the calls that began (or became unknown) less
    /// than that long ago. A background worker must pass it: a call that began a moment ago
    /// is usually still in flight in a pay request of this or another server, and looking it
    /// up then finds nothing yet ("not found"), which would send the machine down the wrong
    /// branch while the real answer is on its way. `reconcileGrace` is the safe value. With it,
    /// a call already looked up without a conclusion waits for its reconciliation timer.
    /// The `reconcile` command passes nil: an operator asks about everything, now.
    public func reconcile(sparingCallsYoungerThan grace: Duration? = nil) async throws -> ReconciliationReport {
        var report = ReconciliationReport()
        let cutoff = grace.map { clock.now().addingTimeInterval(-Self.seconds($0)) }
        for awaiting in try ledger.callsAwaitingReconciliation() {
            if let cutoff, awaiting.since > cutoff { continue }
            // The worker looks a call up at once only the first time. After an inconclusive
            // lookup (nothing found yet, no answer) the call's reconciliation timer, rescheduled
            // by the machine at 30 s, 60 s, 120 s … (`PaymentPolicy.reconciliationDelays`), says
            // when to ask again: asked on every pass instead, a call would use up its twelve
            // lookups within seconds and land in requires_merchant_action long before the grace
            // period in which "the processor has no record" can fail it.
            if grace != nil, awaiting.lookups > 0 { continue }
            do {
                report.lookups.append(try await lookUp(awaiting.call, intentID: awaiting.intentID))
            } catch {
                report.failures.append(.init(intentID: awaiting.intentID, reference: awaiting.call.reference, error: error))
            }
        }
        for timer in try ledger.dueTimers(at: clock.now(), limit: 10_000) {
            do {
                if let entry = try await fire(timer, card: nil) { report.timers.append(entry) }
            } catch {
                report.failures.append(.init(intentID: timer.intentID, reference: timer.reference, error: error))
            }
        }
        return report
    }

    /// How long a worker leaves a call alone before it counts as abandoned: the processor
    /// timeout (after which the caller itself records the outcome as unknown) and 5 s more for
    /// the caller to write that down. A call older than this has lost its caller (a crash).
    public nonisolated var reconcileGrace: Duration { configuration.processorTimeout + .seconds(5) }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    /// Fires one due timer and runs what it leads to; nil when another process handled it.
    func fire(_ timer: DueTimer, card: CardInMemory?) async throws -> ReconciliationReport.TimerEntry? {
        let before = try ledger.intent(timer.intentID)?.status
        switch try ledger.fireTimer(timer, at: clock.now()) {
        case .applied(let transition):
            _ = try await run(transition.executorWork, machine: transition.machine, card: card)
        case .lookupDue(let intentID, let call):
            _ = try await lookUp(call, intentID: intentID)
        case .discarded, .alreadyHandled:
            return nil
        }
        let after = try ledger.intent(timer.intentID)?.status
        return ReconciliationReport.TimerEntry(intentID: timer.intentID, kind: timer.kind, reference: timer.reference,
                                               statusBefore: before, statusAfter: after)
    }

    /// Asks the processor about `call` and records the finding.
    func lookUp(_ call: ProcessorCall, intentID: String) async throws -> ReconciliationReport.LookupEntry {
        let machine = try loadMachine(intentID)
        let before = machine.intent.status
        // A device may be waiting on this lookup (a pay call resumed after a crash): bounded by
        // the sheet's deadline like the call it looks up, unless that deadline has passed.
        let cut: Duration = switch call {
        case .authorize(let attemptID), .completeChallenge(let attemptID), .capture(let attemptID): callTimeout(machine, attemptID: attemptID)
        case .void, .refund: configuration.processorTimeout
        }
        let timeout = cut > .zero ? cut : configuration.processorTimeout
        let result = await processor.lookup(reference: call.reference, operation: call.operation, timeout: timeout)
        let event: PaymentEvent = switch result {
        case .found(let outcome): .reconciliationFound(call, outcome)
        case .notFound: .reconciliationNotFound(call)
        case .unavailable(let reason): .reconciliationUnavailable(call, reason: reason)
        }
        let recorded = try await record(event, intentID: intentID)
        let after = try await run(recorded.work, machine: recorded.machine, card: nil).machine.intent.status
        return ReconciliationReport.LookupEntry(intentID: intentID, call: call, finding: result, statusBefore: before, statusAfter: after)
    }
}
