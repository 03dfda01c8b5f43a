import Synchronization

/// How many passes a background loop has finished: the reconciliation worker's (shown by
/// `serve`'s `GET /healthz`) and the mock processor's webhook sender's (shown by `processor
/// serve`'s `GET /_mock/webhook_deliveries`). An operator sees that the loop is alive (the count
/// grows), and a test waits for passes instead of sleeping and hoping they ran. Here, in the
/// library both servers build on, so the two loops are counted and observed the same way;
/// `package`, as neither loop is part of what a merchant's backend calls.
package final class WorkerPasses: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// Passes finished so far.
    package var finished: Int { count.load(ordering: .acquiring) }

    /// Called by the loop at the end of each pass, after everything the pass did is recorded.
    package func recordPass() { count.add(1, ordering: .releasing) }
}
