import Foundation
import Glibc

/// A small blocking HTTP/1.1 keep-alive client over a loopback socket, for `bench serve` and
/// `bench processor --threads`.
///
/// Deliberately raw: URLSession would add its own connection pool, threads and parsing to
/// what is measured. It sends one request, reads one response framed by its
/// `Content-Length` (the server always sends one), and keeps the connection for the next.
/// A response larger than `maximumResponseBytes` ends the connection with an error rather than
/// growing the buffer without bound (a server under test may be broken, or not ours).
/// One owner thread at a time; every call blocks, bounded by the socket timeout, so a server
/// that stops answering fails the benchmark instead of hanging it.
final class BenchmarkHTTPClient {
    let descriptor: Int32
    /// The `Host` header: the address connected to.
    private let host: String
    private let maximumResponseBytes: Int
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects to `host:port` (an IPv4 address; loopback by default); reads and writes give up
    /// after `timeoutSeconds`.
    init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 60, maximumResponseBytes: Int = 16 << 20) throws(BenchmarkHTTPError) {
        var ipv4 = in_addr()
        guard inet_pton(AF_INET, host, &ipv4) == 1 else { throw .malformed("address '\(host)' is not an IPv4 address") }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .connectFailed(errno) }
        var time = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        // Requests are written whole; without this Nagle's algorithm can hold a small one back.
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = ipv4
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = errno
            close(descriptor)
            throw .connectFailed(reason)
        }
        self.descriptor = descriptor
        self.host = host
        self.maximumResponseBytes = maximumResponseBytes
    }

    deinit {
        close(descriptor)
    }

    /// Sends one request and reads its response. `bearer` goes in `Authorization`; `headers`
    /// are added as given (the processor crash soak's `Idempotency-Key`); a body is sent as
    /// `contentType` (Stripe's clients send forms).
    func request(
        _ method: String, _ path: String, bearer: String?, body: [UInt8]?, headers: [(String, String)] = [],
        contentType: String = "application/json"
    ) throws(BenchmarkHTTPError) -> BenchmarkHTTPResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n"
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + (body ?? []))
        return try readResponse()
    }

    private func send(_ bytes: [UInt8]) throws(BenchmarkHTTPError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw .sendFailed(errno) }
            offset += sent
        }
    }

    /// Reads until `buffer` holds one whole response, then removes it from `buffer`.
    private func readResponse() throws(BenchmarkHTTPError) -> BenchmarkHTTPResponse {
        var searchedUpTo = 0
        while true {
            if let headEnd = Self.headEnd(in: buffer, from: searchedUpTo) {
                let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
                let (status, length) = try Self.parseHead(head)
                let total = headEnd + 4 + length
                guard total <= maximumResponseBytes else { throw .malformed("a response of \(total) bytes, more than \(maximumResponseBytes)") }
                while buffer.count < total { try receive() }
                let body = Array(buffer[(headEnd + 4)..<total])
                buffer.removeFirst(total)
                return BenchmarkHTTPResponse(status: status, body: body)
            }
            guard buffer.count <= maximumResponseBytes else { throw .malformed("a response head longer than \(maximumResponseBytes) bytes") }
            searchedUpTo = max(0, buffer.count - 3)
            try receive()
        }
    }

    private func receive() throws(BenchmarkHTTPError) {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw .timedOut }
            throw .closed(bytesBuffered: buffer.count)
        }
    }

    /// The offset of the `\r\n\r\n` that ends the head, searching from `start`.
    private static func headEnd(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// The status code and `Content-Length` of a response head.
    private static func parseHead(_ head: String) throws(BenchmarkHTTPError) -> (status: Int, length: Int) {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw .malformed("status line '\(lines.first ?? "")'")
        }
        var length = 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line '\(line)'") }
            if line[..<colon].lowercased() == "content-length" {
                guard let value = Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)), value >= 0 else {
                    throw .malformed("Content-Length '\(line)'")
                }
                length = value
            }
        }
        return (status, length)
    }
}

/// One response as the benchmark client read it.
struct BenchmarkHTTPResponse {
    let status: Int
    let body: [UInt8]
}

/// Why the benchmark's client gave up on a connection.
public enum BenchmarkHTTPError: Error, CustomStringConvertible {
    case connectFailed(Int32)
    case sendFailed(Int32)
    case timedOut
    case closed(bytesBuffered: Int)
    case malformed(String)

    public var description: String {
        switch self {
        case .connectFailed(let code): "cannot connect to the server: \(String(cString: strerror(code)))"
        case .sendFailed(let code): "cannot send to the server: \(String(cString: strerror(code)))"
        case .timedOut: "the server did not answer within the client's timeout"
        case .closed(let bytes): "the server closed the connection (\(bytes) bytes of a response read)"
        case .malformed(let what): "the server's response is malformed: \(what)"
        }
    }
}
