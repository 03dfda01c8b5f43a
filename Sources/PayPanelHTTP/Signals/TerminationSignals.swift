import Dispatch
import Glibc
import Synchronization

/// SIGTERM and SIGINT as something async code can await, for a graceful shutdown:
///
/// ```swift
/// let signals = TerminationSignals()          // before starting anything
/// let server = try HTTPServer.start(handler: router.handler)
/// let received = await signals.wait()          // SIGTERM from the supervisor, or Ctrl-C
/// await server.shutdown(grace: .seconds(10))
/// ```
///
/// Each signal is first ignored with `signal(_, SIG_IGN)`, so its default action (terminate)
/// never runs, then watched with a `DispatchSource` signal source, which still sees it.
/// The sources live until `cancel()` (or until this object is released).
public final class TerminationSignals: Sendable {
    private struct State {
        var received: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
        var sources: [any DispatchSourceSignal] = []
    }

    private let state = Mutex(State())

    /// Starts watching `signals` (SIGTERM and SIGINT by default) and returns once every
    /// watch is installed. libdispatch installs a signal source asynchronously after
    /// `resume()`; until then the signal is still ignored and the kernel discards it, so
    /// returning earlier would lose a signal sent right after (found by the tests, which
    /// sometimes hung waiting for a signal the kernel had dropped).
    public init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let installed = DispatchGroup()
        // The sources are made inside the lock so they belong to the protected state.
        state.withLock { state in
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in self?.deliver(number) }
                installed.enter()
                source.setRegistrationHandler { installed.leave() }
                source.resume()
                state.sources.append(source)
            }
        }
        // Bounded, in case a source cannot be installed at all: better a program that may miss
        // a signal sent in its first instant than one that never starts.
        BlockingWait.announce("signal watch installation")
        _ = installed.wait(timeout: .now() + .seconds(5))
    }

    deinit {
        state.withLock { state in
            for source in state.sources { source.cancel() }
        }
    }

    /// The first signal received; returns at once if one already was.
    public func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let received = state.withLock { state -> Int32? in
                if let received = state.received { return received }
                state.waiters.append(continuation)
                return nil
            }
            if let received { continuation.resume(returning: received) }
        }
    }

    /// Whether a signal has arrived (for loops that poll rather than await).
    public var hasReceivedSignal: Bool { state.withLock { $0.received != nil } }

    /// Stops watching. Pending `wait()` calls stay pending.
    public func cancel() {
        let sources = state.withLock { state in
            defer { state.sources = [] }
            return state.sources
        }
        for source in sources { source.cancel() }
    }

    private func deliver(_ number: Int32) {
        let waiters = state.withLock { state in
            if state.received == nil { state.received = number }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: number) }
    }
}

extension HTTPServer {
    /// Waits for SIGTERM or SIGINT (through `signals`), then shuts down with `grace`;
    /// returns the signal received.
    @discardableResult
    public func shutdownOnTermination(_ signals: TerminationSignals, grace: Duration) async -> Int32 {
        let received = await signals.wait()
        await shutdown(grace: grace)
        return received
    }
}
