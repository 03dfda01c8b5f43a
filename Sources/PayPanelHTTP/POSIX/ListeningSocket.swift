import CPayPanelHTTP
import Glibc

/// The server's listening socket: non-blocking, close-on-exec, SO_REUSEADDR (so a restarted
/// server can bind while old connections sit in TIME_WAIT). One owner, the event loop, which
/// closes it when shutdown starts.
final class ListeningSocket {
    let descriptor: Int32
    /// The address actually bound; its port is the real one when port 0 was asked for.
    let localAddress: HTTPRemoteAddress
    private var isClosed = false

    /// What one call to `accept` produced.
    enum Accepted {
        case connection(descriptor: Int32, remoteAddress: HTTPRemoteAddress?)
        /// No connection is waiting.
        case none
        /// Interrupted, or the connection was reset before it was accepted: try again.
        case retry
        /// The process or system is out of descriptors.
        case outOfDescriptors(errno: Int32)
        case failed(errno: Int32)
    }

    private init(descriptor: Int32, localAddress: HTTPRemoteAddress) {
        self.descriptor = descriptor
        self.localAddress = localAddress
    }

    deinit {
        close()
    }

    /// Resolves `host` (numeric addresses need no lookup), binds the first address that
    /// accepts a bind, and listens.
    static func listen(host: String, port: Int, backlog: Int) throws(HTTPServerError) -> ListeningSocket {
        guard (0...65535).contains(port) else {
            throw HTTPServerError("the port \(port) is not between 0 and 65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = POSIX.streamSocket
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPServerError("could not resolve the listen address \(host): \(String(cString: gai_strerror(status)).lowercased())")
        }
        defer { freeaddrinfo(first) }
        var failure = "no address"
        var failureNumber: Int32?
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            entry = candidate.pointee.ai_next
            let descriptor = socket(candidate.pointee.ai_family, POSIX.streamSocket | POSIX.nonBlockingCloseOnExec, 0)
            guard descriptor >= 0 else {
                failureNumber = errno
                failure = POSIX.describe(errno: errno)
                continue
            }
            guard POSIX.setOption(descriptor, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1),
                bind(descriptor, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0,
                Glibc.listen(descriptor, Int32(clamping: backlog)) == 0
            else {
                failureNumber = errno
                failure = POSIX.describe(errno: errno)
                POSIX.close(descriptor)
                continue
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0, let address = POSIX.remoteAddress(of: storage, length: length) else {
                failureNumber = errno
                failure = POSIX.describe(errno: errno)
                POSIX.close(descriptor)
                continue
            }
            return ListeningSocket(descriptor: descriptor, localAddress: address)
        }
        throw HTTPServerError("could not listen on \(HTTPRemoteAddress(host: host, port: port)): \(failure)", errorNumber: failureNumber)
    }

    /// Accepts one waiting connection as a non-blocking, close-on-exec descriptor.
    func accept() -> Accepted {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let accepted = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                accept4(descriptor, $0, &length, POSIX.nonBlockingCloseOnExec)
            }
        }
        if accepted >= 0 {
            return .connection(descriptor: accepted, remoteAddress: POSIX.remoteAddress(of: storage, length: length))
        }
        switch errno {
        case EAGAIN, EWOULDBLOCK: return .none
        case EINTR, ECONNABORTED, EPROTO: return .retry
        case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors(errno: errno)
        default: return .failed(errno: errno)
        }
    }

    /// Stops listening; new connections are refused by the kernel from here on.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        POSIX.close(descriptor)
    }
}

/// Why a server could not start: the listen address, the descriptor set-up.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    /// The system's error number behind it (`EADDRINUSE`…), when a system call failed.
    public let errorNumber: Int32?

    /// An error with its reason and, when a system call failed, its error number.
    public init(_ reason: String, errorNumber: Int32? = nil) {
        self.reason = reason
        self.errorNumber = errorNumber
    }

    /// True when the port is taken by another socket (another server, or one still starting).
    public var isAddressInUse: Bool { errorNumber == EADDRINUSE }

    public var description: String { reason }
}
