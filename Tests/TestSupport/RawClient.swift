import Foundation
import Glibc
import PayPanelHTTP
import Synchronization

/// A response as the test client read it off the wire.
public struct WireResponse: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Why the test client gave up.
public enum ClientError: Error, CustomStringConvertible {
    case connectFailed(Int32)
    case timedOut(String)
    case closedBeforeResponse([UInt8])
    case malformed(String)
    case sendFailed(Int32)

    public var description: String {
        switch self {
        case .connectFailed(let code): "connect failed: \(String(cString: strerror(code)))"
        case .timedOut(let what): "timed out \(what)"
        case .closedBeforeResponse(let bytes): "connection closed after \(bytes.count) bytes of a response"
        case .malformed(let why): "malformed response: \(why)"
        case .sendFailed(let code): "send failed: \(String(cString: strerror(code)))"
        }
    }
}

/// A blocking raw-socket HTTP client for the HTTP core's and the server's tests, where URLSession
/// would hide exactly what is being tested (drips, half requests, pipelining, invalid UTF-8,
/// wrong framing, what the server does to the socket).
/// Every call blocks, with a 10 s socket timeout so a broken server fails a test instead of
/// hanging it; tests run the calls through `onThread` so no cooperative thread ever blocks.
public final class RawClient: Sendable {
    public let descriptor: Int32
    /// Bytes read past the end of the last response (the start of the next one).
    private let leftover = Mutex<[UInt8]>([])

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Connects to the server on loopback.
    public static func connect(to port: Int, host: String = "127.0.0.1", timeout: Int = 10) throws(ClientError) -> RawClient {
        let isIPv6 = host.contains(":")
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .connectFailed(errno) }
        let client = RawClient(descriptor: descriptor)
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else { throw .connectFailed(errno) }
        return client
    }

    public func send(_ text: String) throws(ClientError) {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw .sendFailed(errno) }
            offset += sent
        }
    }

    /// Sends `text` one byte at a time, `interval` apart, stopping early when the server
    /// answers; returns how many bytes were sent.
    public func drip(_ text: String, interval: Duration) throws(ClientError) -> Int {
        var sent = 0
        for byte in Array(text.utf8) {
            if isReadable(withinMilliseconds: Int32(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)) {
                break
            }
            // The server may already have answered and closed: stop at the first failure.
            guard (try? send([byte])) != nil else { break }
            sent += 1
        }
        return sent
    }

    /// Whether bytes (or the end of the stream) arrive within the time given.
    public func isReadable(withinMilliseconds milliseconds: Int32) -> Bool {
        if !leftover.withLock({ $0.isEmpty }) { return true }
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptorSet, 1, milliseconds) > 0
    }

    /// Reads one complete response, framed by its Content-Length (none means no body).
    public func readResponse() throws(ClientError) -> WireResponse {
        try readResponse(bodyExpected: true)
    }

    /// Reads the answer to a HEAD request: its head only, whatever its Content-Length says.
    public func readHeadResponse() throws(ClientError) -> WireResponse {
        try readResponse(bodyExpected: false)
    }

    private func readResponse(bodyExpected: Bool) throws(ClientError) -> WireResponse {
        var buffer = leftover.withLock { bytes in
            defer { bytes = [] }
            return bytes
        }
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if let end = Self.find(terminator, in: buffer) {
                headEnd = end
                break
            }
            guard let more = try receive(), !more.isEmpty else { throw .closedBeforeResponse(buffer) }
            buffer += more
        }
        guard let headEnd else { throw .malformed("no head") }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw .malformed("status line \(statusLine)")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line \(line)") }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = bodyExpected ? headers["Content-Length"].flatMap(Int.init) ?? 0 : 0
        var body = Array(buffer[(headEnd + 4)...])
        while body.count < length {
            guard let more = try receive(), !more.isEmpty else { throw .closedBeforeResponse(body) }
            body += more
        }
        let rest = Array(body[length...])
        leftover.withLock { $0 = rest }
        return WireResponse(status: status, headers: headers, body: Array(body[..<length]))
    }

    /// Waits for the server to close: true at end of stream (or a reset), false if bytes
    /// arrive instead. Throws when nothing happens before the socket timeout.
    public func waitForClose() throws(ClientError) -> Bool {
        if !leftover.withLock({ $0.isEmpty }) { return false }
        do {
            guard let bytes = try receive() else { return true }
            return bytes.isEmpty
        } catch {
            throw error
        }
    }

    /// Up to 64 KiB; empty at end of stream, nil on a reset.
    private func receive() throws(ClientError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count >= 0 { return Array(buffer[..<count]) }
        if errno == ECONNRESET { return nil }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut("waiting for the server") }
        throw .malformed("recv failed: \(String(cString: strerror(errno)))")
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

/// Runs blocking work (the raw client, a child process) on a thread of its own, so the
/// cooperative pool — two threads on a two-core machine, where async tests and in-process
/// servers' callers run — never blocks on it.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Blocking work started on a thread of its own right away, in the calling line, and awaited
/// later. `async let x = onThread { … }` starts the thread only when the child task is first
/// scheduled, which on a loaded machine can be seconds later: a reader that must be reading
/// before the next line runs (a pipe drained while its writer is told to stop) starts here.
public final class StartedThread<T: Sendable>: Sendable {
    private let outcome = Mutex<Result<T, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    public init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
    }

    /// The work's result, once it has finished (waited for on a thread of its own).
    public func value() async throws -> T {
        try await onThread { [self] in
            finished.wait()
            finished.signal()  // for a second call
            return try outcome.withLock { $0! }.get()
        }
    }
}
