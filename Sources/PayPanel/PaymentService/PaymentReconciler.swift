import Foundation

/// Finishes what a timeout, a 500 or a crash left open: looks up the calls still waiting for
/// an answer, fires the timers that came due, and resumes what a failed run of an idempotency
/// key started. It asks the processor only through lookups (the card is gone after a crash,
/// so an authorization is never sent again) and writes only through the executor, on the
/// service's executor like it.
struct PaymentReconciler {
    let executor: PaymentExecutor

    private var ledger: PaymentLedger { executor.ledger }

    /// Looks up, now, every call still waiting for an answer (whatever its retry schedule),
    /// records what the processor says, runs what that leads to (a capture, a reversal, a call
    /// sent again), then fires every timer due at the service's clock (authorization expiry,
    /// abandonment, sheet deadlines, scheduled lookups). Safe to run at any time, from several
    /// processes.
    ///
    /// One intent that cannot be reconciled (a database error, an answer that makes no sense)
    /// does not stop the others: its error is in `failures`, and the rest goes on.
    ///
    /// `sparingCallsYoungerThan`: see `PaymentService.reconcile(sparingCallsYoungerThan:)`.
    nonisolated(nonsending) func reconcile(sparingCallsYoungerThan grace: Duration?) async throws -> ReconciliationReport {
        var report = ReconciliationReport()
        let cutoff = grace.map { executor.clock.now().addingTimeInterval(-$0.timeInterval) }
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
                report.lookups.append(try await executor.lookUp(awaiting.call, intentID: awaiting.intentID))
            } catch {
                report.failures.append(.init(intentID: awaiting.intentID, reference: awaiting.call.reference, error: error))
            }
        }
        for timer in try ledger.dueTimers(at: executor.clock.now(), limit: 10_000) {
            do {
                if let entry = try await executor.fire(timer, card: nil) { report.timers.append(entry) }
            } catch {
                report.failures.append(.init(intentID: timer.intentID, reference: timer.reference, error: error))
            }
        }
        return report
    }

    // MARK: - Resuming a failed run of an idempotency key

    /// Where the attempt a failed or crashed run opened stands now: its call, if still waiting
    /// for an answer, is looked up first (the card is gone, so it cannot be sent again).
    nonisolated(nonsending) func resume(attemptID: String, intentID: String) async throws -> PaymentOutcome {
        if let call = try ledger.awaitingCall(intentID: intentID, reference: attemptID) {
            _ = try await executor.lookUp(call, intentID: intentID)
        }
        return PaymentOutcome(try await executor.loadMachine(intentID), attemptID: attemptID)
    }

    /// Where the refund a failed or crashed run reserved stands now, after a lookup if it is
    /// pending.
    nonisolated(nonsending) func resume(refundID: String, intentID: String) async throws -> PaymentOutcome {
        if let call = try ledger.awaitingCall(intentID: intentID, reference: refundID) {
            _ = try await executor.lookUp(call, intentID: intentID)
        }
        return PaymentOutcome(try await executor.loadMachine(intentID), refundID: refundID)
    }

    /// Where an intent a failed or crashed run moved (a capture, a cancel) stands now: the
    /// call in flight, if any, is looked up first; nothing is asked of the processor again.
    nonisolated(nonsending) func resume(intentID: String) async throws -> PaymentOutcome {
        let machine = try await executor.loadMachine(intentID)
        guard let call = machine.intent.inFlight?.call else {
            return PaymentOutcome(machine, attemptID: machine.intent.currentAttemptID)
        }
        _ = try await executor.lookUp(call, intentID: intentID)
        let after = try await executor.loadMachine(intentID)
        return PaymentOutcome(after, attemptID: after.intent.currentAttemptID)
    }
}
