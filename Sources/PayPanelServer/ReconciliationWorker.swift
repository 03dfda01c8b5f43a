import Foundation
import PayPanel

/// Runs `service.reconcile()` every `interval` until stopped: due timers fire (sheet
/// deadlines, authorization expiry, abandonment) and unknown outcomes are looked up, and a
/// call whose caller vanished (a crash) is looked up once `reconcileGrace` has passed. Before
/// each reconciliation it runs the server's other duties (`WorkerDuties`).
///
/// Several servers on one database may run it at once: `PaymentLedger.fireTimer` re-checks
/// the timer (`isStillDue`) and deletes it inside the same `BEGIN IMMEDIATE` write that applies
/// it, so exactly one process acts on a due timer; the others see `.alreadyHandled`.
/// Under virtual time (`--now`) the clock does not move by itself, so timers due at that time
/// fire on the first pass.
public final class ReconciliationWorker: Sendable {
    private let task: Task<Void, Never>

    /// Starts at once; `report` hears what each pass did, and each failure (`WorkerEvent`);
    /// `passes` counts the passes finished.
    package init(
        service: PaymentService, interval: Duration, duties: WorkerDuties = WorkerDuties(),
        passes: WorkerPasses = WorkerPasses(), report: @escaping @Sendable (WorkerEvent) -> Void
    ) {
        task = Task {
            while !Task.isCancelled {
                await duties.run(report: report)
                do {
                    // Calls still in flight in a pay request are not this pass's business.
                    let result = try await service.reconcile(sparingCallsYoungerThan: service.reconcileGrace)
                    if !result.timers.isEmpty || !result.lookups.isEmpty || !result.failures.isEmpty { report(.reconciled(result)) }
                } catch {
                    report(.reconcileFailed(error))
                }
                passes.recordPass()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Stops after the pass in progress, if any.
    public func stop() async {
        task.cancel()
        await task.value
    }
}
