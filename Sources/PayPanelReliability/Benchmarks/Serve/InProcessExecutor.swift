import Foundation

/// Threads of their own for the in-process side of `bench serve`, so it runs on the same
/// execution model as the server it is compared with: `paypanel serve` runs its handlers on a
/// `TaskExecutor` of eight threads, where the blocking SQLite commits and the hops between
/// `CheckoutDesk` and `PaymentService` stay. On the global cooperative pool (one thread per
/// core, two here) the same commits would hold the pool's threads and every hop would wait for
/// one, and the ratio would measure that difference instead of HTTP's cost.
final class InProcessExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `queue` and `finished` are only touched with `condition` held.
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    private var finished = false

    /// The server's default handler thread count (`HTTPServer.Configuration.handlerThreads`).
    static let serverHandlerThreads = 8

    init(threads: Int = InProcessExecutor.serverHandlerThreads) {
        for _ in 0..<max(1, threads) {
            Thread { self.drain() }.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if finished {
            condition.unlock()
            Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the threads once the queue is empty. Jobs enqueued later still run, each on a
    /// thread of its own, so nothing is left suspended.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func drain() {
        while true {
            condition.lock()
            while queue.isEmpty && !finished { condition.wait() }
            guard !queue.isEmpty else {
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
