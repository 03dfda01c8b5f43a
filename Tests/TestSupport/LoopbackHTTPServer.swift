import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for tests of the media fetcher: it
/// serves canned answers by path, one connection at a time, and never touches another address.
/// Call `stop()` when done (`defer { server.stop() }`): the serving thread keeps it alive.
public final class LoopbackHTTPServer: Sendable {
    /// What the server answers for a path.
    public enum Answer: Sendable {
        /// 200 with the body, framed by Content-Length (or chunked, in `chunkSize` pieces).
        case ok(body: [UInt8], contentType: String, chunkSize: Int? = nil)
        /// 200 with the body and no length: the end of the connection ends the body.
        case okUntilClose(body: [UInt8])
        /// A status with no body.
        case status(Int)
        /// A status with a body (an API's JSON error), after the request's body is read, so the
        /// close that follows never resets the connection under the client's read.
        case answer(Int, body: [UInt8], contentType: String)
        /// A redirect to `location`.
        case redirect(Int, location: String)
        /// Reads the request and never answers (until the server stops).
        case stall
        /// Announces `announced` bytes with Content-Length but sends only the headers.
        case announce(Int)
    }

    public let port: Int
    private let listener: Int32
    private let routes: [String: Answer]
    private let stopped = Atomic<Bool>(false)
    private let requests = Mutex<[String]>([])
    private let finished = DispatchSemaphore(value: 0)

    /// Starts serving `routes` (path → answer); unknown paths get 404.
    public init(routes: [String: Answer]) throws {
        self.routes = routes
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw LoopbackServerError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw LoopbackServerError("bind/listen on 127.0.0.1 failed: errno \(errno)")
        }
        port = LoopbackHTTPServer.localPort(of: descriptor)
        listener = descriptor
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        stop()
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The request targets received, in order.
    public var receivedTargets: [String] { requests.withLock { $0 } }

    /// Stops accepting and waits for the serving thread to end.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        finished.wait()
        close(listener)
    }

    private static func localPort(of descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func serve() {
        defer { finished.signal() }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard waitReadable(listener, milliseconds: 20) else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            handle(client)
            close(client)
        }
    }

    private func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    private func handle(_ client: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Read the request head (bounded, and given up when the server stops).
        while !request.containsHeadEnd && request.count < 65536 && !stopped.load(ordering: .sequentiallyConsistent) {
            guard waitReadable(client, milliseconds: 20) else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress!, 4096, 0) }
            if count <= 0 { return }
            request += buffer[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        let target = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        requests.withLock { $0.append(target) }
        let path = String(target.prefix { $0 != "?" })
        switch routes[path] ?? .status(404) {
        case .ok(let body, let contentType, let chunkSize):
            if let chunkSize {
                var bytes = Array("HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                var offset = 0
                while offset < body.count {
                    let piece = body[offset..<min(offset + chunkSize, body.count)]
                    bytes += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
                    offset += piece.count
                }
                bytes += Array("0\r\n\r\n".utf8)
                send(client, bytes)
            } else {
                send(client, Array("HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            }
        case .okUntilClose(let body):
            send(client, Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + body)
        case .status(let code):
            send(client, Array("HTTP/1.1 \(code) Status\r\nContent-Length: 0\r\n\r\n".utf8))
        case .answer(let code, let body, let contentType):
            readBody(of: request, from: client)
            send(client, Array("HTTP/1.1 \(code) Status\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body)
        case .redirect(let code, let location):
            send(client, Array("HTTP/1.1 \(code) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n".utf8))
        case .announce(let length):
            send(client, Array("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n".utf8))
            holdUntilClientLeaves(client)
        case .stall:
            holdUntilClientLeaves(client)
        }
    }

    /// Reads what is left of the body `head` announces with Content-Length (bounded to 1 MiB).
    private func readBody(of head: [UInt8], from client: Int32) {
        let text = String(decoding: head, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return }
        let length = text[..<headEnd.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var left = min(length, 1 << 20) - (head.count - text[..<headEnd.upperBound].utf8.count)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while left > 0 && !stopped.load(ordering: .sequentiallyConsistent) {
            guard waitReadable(client, milliseconds: 20) else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress!, min(4096, left), 0) }
            if count <= 0 { return }
            left -= count
        }
    }

    /// Keeps the connection open without answering until the client closes it or the server stops.
    private func holdUntilClientLeaves(_ client: Int32) {
        var byte: UInt8 = 0
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard waitReadable(client, milliseconds: 20) else { continue }
            if recv(client, &byte, 1, 0) <= 0 { return }
        }
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let sent = bytes.withUnsafeBytes { Foundation.send(client, $0.baseAddress! + offset, bytes.count - offset, flags) }
            if sent <= 0 { return }
            offset += sent
        }
    }
}

/// The test server could not start.
public struct LoopbackServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Array where Element == UInt8 {
    fileprivate var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}
