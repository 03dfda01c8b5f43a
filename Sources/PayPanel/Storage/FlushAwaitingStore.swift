/// A store whose commits may return before they are on disk (SQLite's group commit,
/// `WALSync`), so that a caller can wait for the flush without holding its thread.
///
/// Every store its owner reaches from an actor refines it: the checkout, API key, device and
/// webhook stores. Their owners group a turn's calls in `awaitingFlush`, so the calls that other
/// callers make on the same thread meanwhile commit into the same flush.
public protocol FlushAwaitingStore: AnyObject {
    /// Runs `body`, synchronous calls of this store (reads and writes), without holding the
    /// thread in them for the flushes their commits and the commits their reads saw need; then
    /// awaits those flushes at once, suspending the caller instead. It returns, as each call
    /// would, only once all of it is durable. The default runs `body`: a store whose commits are
    /// durable when they return (PostgreSQL's) has nothing to wait for.
    nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T
}

extension FlushAwaitingStore {
    /// A store whose commits are durable when they return waits for nothing more.
    public nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try body()
    }
}
