import Foundation

/// A small HTTP/1.1 GET client over POSIX sockets, with one hard deadline for the whole fetch
/// (lookup, connect, request, response, redirects).
///
/// Plain http stays on this client (one deadline for lookup, connect and every read, which
/// URLSession cannot give: its timeouts are whole seconds and restart with each byte). It has
/// no TLS (only libcrypto is linked), so it reports `https://` as unsupported; the standard
/// fetcher sends https to `HTTPSMediaClient` (URLSession) instead.
package struct HTTPClient: Sendable {
    /// Redirects followed before giving up.
    package var maximumRedirects: Int
    /// Bytes asked of the socket at a time.
    let receiveSize = 64 * 1024

    package init(maximumRedirects: Int = 3) {
        self.maximumRedirects = maximumRedirects
    }

    /// A response with status 200 and its body.
    package struct Response: Sendable, Equatable {
        package let status: Int
        package let body: [UInt8]
        /// The `Content-Type` header, when sent.
        package let contentType: String?
    }

    /// GETs `url`, following up to `maximumRedirects` redirects to other http URLs, and returns
    /// the body of the final 200 response. Everything must finish within `timeout`.
    package func get(_ url: MediaLocation.WebURL, maximumBytes: Int, timeout: Duration) throws(MediaFetchError) -> Response {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var current = url
        for _ in 0...maximumRedirects {
            guard !current.isSecure else {
                throw MediaFetchError(.unsupported, "\(current) uses https, which PayPanel's built-in HTTP client does not support (no TLS library is linked): serve the media over http, or give a local path")
            }
            let reader: HTTPResponseReader
            do {
                reader = try exchange(current, maximumBytes: maximumBytes, deadline: deadline)
            } catch where error.kind == .timedOut {
                throw MediaFetchError(.timedOut, "fetching \(current) timed out after \(Self.seconds(timeout)) s (\(error.message))")
            }
            let status = reader.status ?? 0
            if [301, 302, 303, 307, 308].contains(status) {
                guard let location = reader.header("Location") else {
                    throw MediaFetchError(.protocolError, "\(current) redirected (HTTP \(status)) without a Location header")
                }
                switch MediaLocation.web(current).resolvingRedirect(location) {
                case .success(.web(let next)):
                    current = next
                    continue
                case .success:
                    throw MediaFetchError(.forbidden, "\(current) redirected to \(JSONWriter.quoted(location)), which is not an http URL; only web redirects are followed")
                case .failure(let problem):
                    throw MediaFetchError(.protocolError, "\(current) redirected to an unusable location: \(problem.message)")
                }
            }
            guard status == 200 else {
                throw MediaFetchError(.httpStatus, "\(current) answered HTTP \(status)\(status == 404 ? " (not found)" : "")")
            }
            return Response(status: status, body: reader.body, contentType: reader.header("Content-Type"))
        }
        throw MediaFetchError(.protocolError, "\(url) redirected more than \(maximumRedirects) times")
    }

    /// One request and its response on a fresh connection (`Connection: close`).
    private func exchange(_ url: MediaLocation.WebURL, maximumBytes: Int, deadline: ContinuousClock.Instant)
        throws(MediaFetchError) -> HTTPResponseReader
    {
        let connection = try SocketConnection.connect(host: url.host, port: url.port, deadline: deadline)
        let request = "GET \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: paypanel/\(PayPanelVersion.current)\r\n"
            + "Accept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n"
        try connection.send(Array(request.utf8), what: "sending the request to \(url.hostHeader)")
        var reader = HTTPResponseReader(maximumBodyBytes: maximumBytes)
        while !reader.isComplete {
            let bytes = try connection.receive(maximum: receiveSize, what: "reading the response from \(url.hostHeader)")
            if bytes.isEmpty {
                try reader.endOfStream()
                break
            }
            try reader.consume(bytes)
        }
        return reader
    }

    /// `0.5`, `25`: seconds for messages.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return String(milliseconds / 1000) }
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
