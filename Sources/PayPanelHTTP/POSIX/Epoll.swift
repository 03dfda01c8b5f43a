import CPayPanelHTTP
import Glibc

/// An epoll instance in level-triggered mode: a descriptor is reported for as long as it is
/// readable or writable, so the loop may read once per wake-up and never has to drain a socket
/// to avoid losing an edge. Each registration carries a 64-bit key (the connection's id)
/// rather than the descriptor, so an event for a closed and reused descriptor number can
/// never reach the wrong connection. One owner, the event loop; closed in `deinit`.
final class Epoll {
    static let readable = EPOLLIN.rawValue
    static let writable = EPOLLOUT.rawValue
    static let error = EPOLLERR.rawValue
    static let hangUp = EPOLLHUP.rawValue

    let descriptor: Int32
    private var events: [epoll_event]

    /// The descriptor is kept only once it is valid, and nothing fails after that: `deinit`,
    /// the one place it is closed, never sees a failed init's descriptor.
    init(capacity: Int = 256) throws(HTTPServerError) {
        let descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else {
            throw HTTPServerError("could not create an epoll instance: \(POSIX.describe(errno: errno))")
        }
        self.descriptor = descriptor
        events = Array(repeating: epoll_event(), count: capacity)
    }

    deinit {
        POSIX.close(descriptor)
    }

    /// Starts watching `target` for `interest`, reporting it with `key`.
    func add(_ target: Int32, interest: UInt32, key: UInt64) -> Bool {
        control(EPOLL_CTL_ADD, target, interest: interest, key: key)
    }

    /// Changes what `target` is watched for; 0 still reports errors and hang-ups.
    @discardableResult
    func modify(_ target: Int32, interest: UInt32, key: UInt64) -> Bool {
        control(EPOLL_CTL_MOD, target, interest: interest, key: key)
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and returns the ready keys and events.
    /// An interrupted wait returns nothing.
    func wait(timeoutMilliseconds: Int32) -> [(key: UInt64, events: UInt32)] {
        let count = events.withUnsafeMutableBufferPointer {
            epoll_wait(descriptor, $0.baseAddress, Int32($0.count), timeoutMilliseconds)
        }
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { (events[$0].data.u64, events[$0].events) }
    }

    private func control(_ operation: Int32, _ target: Int32, interest: UInt32, key: UInt64) -> Bool {
        var event = epoll_event(events: interest, data: epoll_data_t(u64: key))
        return epoll_ctl(descriptor, operation, target, &event) == 0
    }
}
