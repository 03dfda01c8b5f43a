import CPayPanelHTTP
import Glibc
import Synchronization

/// The one way into the event loop from other threads: handler tasks post responses,
/// admission checks their answers, the server posts shutdown. Messages sit behind a `Mutex`; an eventfd registered with the
/// loop's epoll wakes it. Writing the eventfd only when the queue goes from empty to
/// non-empty keeps a burst of responses to one wake-up.
///
/// Once closed (the loop has stopped) posts are dropped, and the eventfd is closed under the
/// same lock, so a late handler can never write into a descriptor number the process has
/// since reused for something else.
final class LoopInbox: Sendable {
    enum Message: Sendable {
        case response(connectionID: UInt64, HTTPResponse)
        /// The answer of a request's admission check (its body is still unread).
        case admission(connectionID: UInt64, HTTPAdmission)
        case shutdown(grace: Duration)
    }

    private struct State {
        var messages: [Message] = []
        var wakePending = false
        var isClosed = false
    }

    /// The eventfd the loop registers for reading.
    let descriptor: Int32
    private let state = Mutex(State())

    /// Kept only once valid; nothing fails after that. Closed by `close()`, never by a failed
    /// init (there is nothing to close then).
    init() throws(HTTPServerError) {
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard descriptor >= 0 else {
            throw HTTPServerError("could not create an eventfd: \(POSIX.describe(errno: errno))")
        }
        self.descriptor = descriptor
    }

    /// Queues a message and wakes the loop; a no-op once the loop has stopped.
    func post(_ message: Message) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.messages.append(message)
            guard !state.wakePending else { return }
            state.wakePending = true
            var one: UInt64 = 1
            _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    /// Everything posted so far, in order. Called by the loop when the eventfd is readable.
    func drain() -> [Message] {
        // Reset the counter before taking the messages: a post after this point writes again.
        var counter: UInt64 = 0
        _ = read(descriptor, &counter, MemoryLayout<UInt64>.size)
        return state.withLock { state in
            state.wakePending = false
            defer { state.messages = [] }
            return state.messages
        }
    }

    /// Drops pending and future messages and closes the eventfd.
    func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            state.messages = []
            POSIX.close(descriptor)
        }
    }
}
