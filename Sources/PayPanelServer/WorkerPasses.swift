import Synchronization

/// How many passes the reconciliation worker has finished, shown by `GET /healthz`: an operator
/// sees that the worker is alive (the count grows), and a test waits for passes instead of
/// sleeping and hoping they ran.
public final class WorkerPasses: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    /// Passes finished so far.
    public var finished: Int { count.load(ordering: .acquiring) }

    func recordPass() { count.add(1, ordering: .releasing) }
}
