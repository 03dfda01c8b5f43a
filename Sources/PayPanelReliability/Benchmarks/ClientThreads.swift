import Foundation
import Synchronization

/// Benchmark clients on threads of their own, released together.
///
/// Threads, not tasks: a benchmark client blocks on its socket, and a blocked cooperative thread
/// would stall every other client (and an in-process server's own tasks) on a 2-core machine.
enum ClientThreads {
    /// Runs `count` clients, client `i` as `client(i, startLine)` on its own thread. Each does
    /// its setup (connecting, say), calls `startLine()` to wait until every client is ready, then
    /// works and returns its tally. The clock starts when the last client reached the start line
    /// (`onStart` gets that instant, for a deadline) and stops when the last one returned.
    /// A client that returns without calling `startLine` (its setup failed) is counted as ready.
    static func run<Tally: Sendable>(
        count: Int, onStart: @escaping @Sendable (ContinuousClock.Instant) -> Void = { _ in },
        client: @escaping @Sendable (_ index: Int, _ startLine: () -> Void) -> Tally
    ) async -> (tallies: [Tally], seconds: Double) {
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let tallies = Mutex<[Tally]>([])
        for index in 0..<count {
            ready.enter()
            done.enter()
            let thread = Thread {
                var waited = false
                let startLine = {
                    guard !waited else { return }
                    waited = true
                    ready.leave()
                    go.wait()
                }
                let tally = client(index, startLine)
                if !waited { ready.leave() }
                tallies.withLock { $0.append(tally) }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return await withCheckedContinuation { continuation in
            // The coordinator blocks too, so it gets a thread of its own as well.
            Thread {
                ready.wait()
                let start = ContinuousClock.now
                onStart(start)
                for _ in 0..<count { go.signal() }
                done.wait()
                let seconds = (ContinuousClock.now - start).timeInterval
                continuation.resume(returning: (tallies.withLock { $0 }, seconds))
            }.start()
        }
    }
}
