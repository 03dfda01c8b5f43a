import Foundation

/// One HTTP/1.1 request and its response on a fresh connection, over the library's own POSIX
/// socket client, with one deadline for everything.
///
/// Why not URLSession: what matters here is *when* a failure happened. Refused or unresolvable
/// before a byte was sent means the processor never saw the request (safe to retry); anything
/// after the request was written — a timeout, a reset, a close before the answer — means it may
/// have been processed. FoundationNetworking (libcurl) reports a timeout as one error whether it
/// struck while connecting or while waiting for the answer, and a dropped connection as
/// "network connection lost" without saying whether the request was out; it also needs libcurl
/// at run time, which the documented setup does not install. Here each phase is our own code.
struct ProcessorHTTPClient: Sendable {
    let endpoint: ProcessorEndpoint
    /// The longest response body read (a processor's objects are small).
    static let maximumBodyBytes = 1024 * 1024

    struct Response: Sendable {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    enum Result: Sendable {
        /// A complete response.
        case response(Response)
        /// The request never left: name lookup failed, or the connection was refused or timed
        /// out while connecting. The processor has not seen it.
        case notSent(reason: String)
        /// The request was (possibly partly) written, and no complete answer came: the
        /// processor may have processed it.
        case noAnswer(reason: String)
    }

    /// Sends `method path` with `headers` and `body` and waits for the answer until `deadline`.
    /// Runs the blocking socket work on a thread of its own so no Swift concurrency thread waits.
    func send(method: String, path: String, headers: [(String, String)], body: [UInt8], deadline: ContinuousClock.Instant) async -> Result {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: exchange(method: method, path: path, headers: headers, body: body, deadline: deadline))
            }
            thread.start()
        }
    }

    private func exchange(method: String, path: String, headers: [(String, String)], body: [UInt8], deadline: ContinuousClock.Instant) -> Result {
        let connection: SocketConnection
        do {
            connection = try SocketConnection.connect(host: endpoint.host, port: endpoint.port, deadline: deadline)
        } catch {
            return .notSent(reason: error.message)
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(endpoint.hostHeader)\r\nUser-Agent: paypanel/\(PayPanelVersion.current)\r\n"
            + "Accept: application/json\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method != "GET" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        do {
            try connection.send(Array(head.utf8) + body, what: "sending the request to the processor at \(endpoint)")
        } catch {
            // Some bytes may be out; the processor cannot act on a partial request, but a send
            // that failed after the last byte left cannot be told apart: count it as sent.
            return .noAnswer(reason: error.message)
        }
        var reader = HTTPResponseReader(maximumBodyBytes: Self.maximumBodyBytes, readsEveryBody: true)
        do {
            while !reader.isComplete {
                let bytes = try connection.receive(maximum: 64 * 1024, what: "waiting for the processor's answer from \(endpoint)")
                if bytes.isEmpty {
                    try reader.endOfStream()
                    break
                }
                try reader.consume(bytes)
            }
        } catch {
            let reason = error.kind == .timedOut
                ? "no answer from the processor at \(endpoint) before the timeout (the request was sent)"
                : "the connection to the processor at \(endpoint) broke after the request was sent: \(error.message)"
            return .noAnswer(reason: reason)
        }
        guard let status = reader.status else { return .noAnswer(reason: "the processor at \(endpoint) sent no status line") }
        return .response(Response(status: status, headers: reader.headers, body: reader.body))
    }
}

/// `application/x-www-form-urlencoded` with Stripe's bracket keys, as Stripe's SDKs send it.
enum FormEncoding {
    static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        Array(pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&").utf8)
    }

    /// Percent-encodes everything but the unreserved characters (RFC 3986).
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
