import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe that wakes the terminal loop's `poll`: signals and finished backend work write a
/// byte to it, the loop drains it and looks at what happened.
final class WakePipe: Sendable {
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw CLIFailure(code: "terminal_unavailable", message: "cannot create a pipe for the terminal loop (errno \(errno))")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Wakes the loop (a full pipe already will).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(readDescriptor, $0.baseAddress!, $0.count) }) > 0 {}
    }
}

/// Catches SIGINT, SIGTERM, SIGHUP and SIGWINCH while the terminal is raw, so that leaving by
/// a signal goes through the same cleanup as quitting (the terminal restored, an unpaid
/// intent canceled) and a resize redraws. The signals' default actions are off until
/// `stop()`; each one is queued and the loop is woken through `waker`.
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]
    private let received: SignalQueue
    private let ignored: [Int32]

    /// The signals caught and not yet taken (a class so the handlers can share it).
    private final class SignalQueue: Sendable {
        let pending = Mutex<[Int32]>([])
    }

    init(signals: [Int32], waker: WakePipe) {
        // SIGWINCH is ignored by default already; the others would end the process at once.
        ignored = signals.filter { $0 != SIGWINCH }
        for number in ignored { signal(number, SIG_IGN) }
        var sources: [any DispatchSourceSignal] = []
        let received = SignalQueue()
        for number in signals {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.pending.withLock { $0.append(number) }
                waker.wake()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
        self.received = received
    }

    /// The signals received since the last call, in order.
    func take() -> [Int32] {
        received.pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Stops watching and gives the signals their default actions back.
    func stop() {
        for source in sources { source.cancel() }
        for number in ignored { signal(number, SIG_DFL) }
    }
}
