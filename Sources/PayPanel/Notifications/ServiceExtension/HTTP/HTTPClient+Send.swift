import Foundation

// Requests other than a media GET: what `paypanel checkout --server` sends to `paypanel serve`
// (JSON bodies, a Bearer token, an Idempotency-Key), with every answer's body read, errors
// included, since the API's error envelope is in the body.
extension HTTPClient {
    /// An answer of any status, with the headers a caller of the API looks at.
    package struct Reply: Sendable, Equatable {
        package let status: Int
        package let body: [UInt8]
        /// `Request-Id`, to quote in a message.
        package let requestID: String?
        /// True when an `Idempotency-Key` replayed a stored answer (`Idempotent-Replayed: true`).
        package let replayed: Bool
    }

    /// Sends `method url` with `headers` and `body` on a fresh connection (`Connection: close`)
    /// and reads the whole answer, whatever its status; no redirect is followed. Everything
    /// must finish within `timeout`; the body may be at most `maximumBytes`.
    package func send(
        _ method: String, _ url: MediaLocation.WebURL, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        maximumBytes: Int, timeout: Duration
    ) throws(MediaFetchError) -> Reply {
        guard !url.isSecure else {
            throw MediaFetchError(.unsupported, "\(url) uses https, which PayPanel's built-in HTTP client does not support (no TLS library is linked): use http:// on a trusted network or loopback")
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let connection: SocketConnection
        do {
            connection = try SocketConnection.connect(host: url.host, port: url.port, deadline: deadline)
        } catch where error.kind == .timedOut {
            throw MediaFetchError(.timedOut, "connecting to \(url.hostHeader) timed out after \(Self.seconds(timeout)) s")
        }
        var head = "\(method) \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: paypanel/\(PayPanelVersion.current)\r\n"
            + "Accept: application/json\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        do {
            try connection.send(Array(head.utf8) + body, what: "sending the request to \(url.hostHeader)")
            var reader = HTTPResponseReader(maximumBodyBytes: maximumBytes, readsEveryBody: true)
            while !reader.isComplete {
                let bytes = try connection.receive(maximum: receiveSize, what: "reading the answer from \(url.hostHeader)")
                if bytes.isEmpty {
                    try reader.endOfStream()
                    break
                }
                try reader.consume(bytes)
            }
            return Reply(
                status: reader.status ?? 0, body: reader.body, requestID: reader.header("Request-Id"),
                replayed: reader.header("Idempotent-Replayed") == "true")
        } catch where error.kind == .timedOut {
            throw MediaFetchError(.timedOut, "\(method) \(url) got no answer within \(Self.seconds(timeout)) s (\(error.message))")
        }
    }
}
