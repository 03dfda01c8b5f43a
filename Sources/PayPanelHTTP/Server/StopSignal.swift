import Synchronization

/// Fires once, when the event loop has stopped; everyone awaiting it resumes then, and
/// anyone awaiting afterwards resumes at once.
final class StopSignal: Sendable {
    private struct State {
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var hasStopped: Bool { state.withLock { $0.stopped } }

    func fire() {
        let waiters = state.withLock { state in
            state.stopped = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyStopped = state.withLock { state in
                if state.stopped { return true }
                state.waiters.append(continuation)
                return false
            }
            if alreadyStopped { continuation.resume() }
        }
    }
}

/// Numbers the loop publishes for other threads to read.
final class LoopStatistics: Sendable {
    let openConnections = Atomic<Int>(0)
}
