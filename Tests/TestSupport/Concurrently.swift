import Dispatch
import Foundation
import Synchronization

/// Runs work on several threads released at the same moment, to make races likely: each
/// thread waits until all are ready, then all go together.
public enum Concurrently {
    /// Runs `body(index)` for `0..<count` on `count` threads started together; returns the
    /// results in index order.
    public static func run<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[Int: T]>([:])
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                ready.signal()
                go.wait()
                let result = body(index)
                results.withLock { $0[index] = result }
                group.leave()
            }
        }
        for _ in 0..<count { ready.wait() }
        for _ in 0..<count { go.signal() }
        group.wait()
        return results.withLock { stored in (0..<count).compactMap { stored[$0] } }
    }
}
