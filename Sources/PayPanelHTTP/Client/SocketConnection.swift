import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TCP connection over POSIX sockets where every step — name lookup, connect, send,
/// receive — is bounded by a deadline. Non-blocking sockets and `poll` make connect and I/O
/// give up on time; name lookup (which has no timeout in libc) runs on its own thread and is
/// abandoned when the deadline passes.
///
/// One owner; the descriptor is closed in `deinit`.
final class SocketConnection {
    private let descriptor: Int32
    let deadline: ContinuousClock.Instant

    private init(descriptor: Int32, deadline: ContinuousClock.Instant) {
        self.descriptor = descriptor
        self.deadline = deadline
    }

    deinit {
        close(descriptor)
    }

    /// Connects to `host:port`, trying each address the name resolves to until one answers.
    static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(HTTPClientError) -> SocketConnection {
        let addresses = try AddressResolver.resolve(host: host, port: port, deadline: deadline)
        var lastFailure = "no address"
        for address in addresses {
            let descriptor = socket(address.family, socketStreamType, 0)
            guard descriptor >= 0 else {
                lastFailure = String(cString: strerror(errno))
                continue
            }
            let connection = SocketConnection(descriptor: descriptor, deadline: deadline)
            #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let result = address.storage.withUnsafeBytes { buffer in
                Foundation.connect(descriptor, buffer.baseAddress!.assumingMemoryBound(to: sockaddr.self), address.length)
            }
            if result == 0 { return connection }
            guard errno == EINPROGRESS else {
                lastFailure = String(cString: strerror(errno))
                continue
            }
            // Ready or failed, SO_ERROR says which.
            _ = try connection.wait(for: Int16(POLLOUT), doing: "connecting to \(host):\(port)")
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length)
            if socketError == 0 { return connection }
            lastFailure = String(cString: strerror(socketError))
        }
        throw HTTPClientError(.unreachable, "could not connect to \(host):\(port): \(lastFailure.lowercased())", requestSent: false)
    }

    /// Sends all of `bytes` before the deadline.
    func send(_ bytes: [UInt8], what: String) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Foundation.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, sendFlags)
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                _ = try wait(for: Int16(POLLOUT), doing: what)
                continue
            }
            throw HTTPClientError(.unreachable, "\(what) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Up to `maximum` bytes as soon as some arrive; empty at the end of the stream.
    func receive(maximum: Int, what: String) throws(HTTPClientError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.recv(descriptor, $0.baseAddress!, maximum, 0) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                _ = try wait(for: Int16(POLLIN), doing: what)
                continue
            }
            throw HTTPClientError(.unreachable, "\(what) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Waits until the socket is ready for `events` or reports an error or hang-up; throws
    /// `.timedOut` at the deadline. Returns false when only an error condition was reported.
    private func wait(for events: Int16, doing what: String) throws(HTTPClientError) -> Bool {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw HTTPClientError(.timedOut, "\(what) timed out") }
            let milliseconds = Int32(clamping: remaining.wholeMilliseconds + 1)
            var descriptorSet = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&descriptorSet, 1, milliseconds)
            if ready > 0 { return descriptorSet.revents & (events | Int16(POLLHUP)) != 0 }
            if ready < 0 && errno != EINTR {
                throw HTTPClientError(.unreachable, "\(what) failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    #if canImport(Glibc)
    private static let socketStreamType = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let socketStreamType = SOCK_STREAM
    private let sendFlags: Int32 = 0
    #endif
}

/// Resolves host names with `getaddrinfo`, bounded by a deadline.
enum AddressResolver {
    /// One resolved address, copied out of libc's list so it can cross threads.
    struct Address: Sendable {
        let family: Int32
        let storage: [UInt8]
        let length: socklen_t
    }

    static func resolve(host: String, port: Int, deadline: ContinuousClock.Instant) throws(HTTPClientError) -> [Address] {
        // A literal address needs no lookup: AI_NUMERICHOST answers at once.
        if case .success(let addresses) = lookUp(host: host, port: port, numericOnly: true), !addresses.isEmpty {
            return addresses
        }
        // getaddrinfo cannot be interrupted: run it on its own thread and stop waiting at the
        // deadline (the thread finishes on its own and its answer is dropped).
        let box = ResolutionBox()
        let thread = Thread {
            let result = lookUp(host: host, port: port, numericOnly: false)
            box.finish(result)
        }
        thread.start()
        BlockingWait.announce("host name lookup")
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, remaining.wholeNanoseconds)
        guard box.done.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success,
            let result = box.result
        else {
            throw HTTPClientError(.timedOut, "looking up \(host) timed out", requestSent: false)
        }
        return try result.get()
    }

    /// Shares the lookup's result between the lookup thread and the waiting caller.
    private final class ResolutionBox: Sendable {
        let outcome = Mutex<Result<[Address], HTTPClientError>?>(nil)
        let done = DispatchSemaphore(value: 0)

        func finish(_ result: Result<[Address], HTTPClientError>) {
            outcome.withLock { $0 = result }
            done.signal()
        }

        var result: Result<[Address], HTTPClientError>? { outcome.withLock { $0 } }
    }

    private static func lookUp(host: String, port: Int, numericOnly: Bool) -> Result<[Address], HTTPClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = socketStreamHint
        hints.ai_flags = numericOnly ? AI_NUMERICHOST | AI_NUMERICSERV : AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(HTTPClientError(.unreachable, "could not find the host \(host): \(reason.lowercased())", requestSent: false))
        }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let entry = current {
            if let socketAddress = entry.pointee.ai_addr {
                let bytes = Array(UnsafeRawBufferPointer(start: socketAddress, count: Int(entry.pointee.ai_addrlen)))
                addresses.append(Address(family: entry.pointee.ai_family, storage: bytes, length: entry.pointee.ai_addrlen))
            }
            current = entry.pointee.ai_next
        }
        return .success(addresses)
    }

    #if canImport(Glibc)
    private static let socketStreamHint = Int32(SOCK_STREAM.rawValue)
    #else
    private static let socketStreamHint = SOCK_STREAM
    #endif
}
