import Foundation

/// One `POST` over plain HTTP/1.1 on the library's own socket client, with one deadline for
/// everything (lookup, connect, request, answer): how the mock processor's webhook sender
/// (`paypanel processor serve`) posts to `serve`, with no libcurl needed at run time.
///
/// No TLS: only libcrypto is linked, so `https://` is not for this client.
package enum PlainHTTPPost {
    /// The longest answer body read; a webhook receiver's answer is not looked at beyond its status.
    static let maximumBodyBytes = 64 * 1024

    /// Posts `body` to `url` (`http://host[:port]/path`), giving up after `timeout`.
    package static func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        guard let target = Target(url) else { return .failed("not an http:// URL") }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: exchange(target, headers: headers, body: body, deadline: deadline))
            }
            thread.start()
        }
    }

    /// The parts of an `http://` URL the request needs.
    struct Target {
        let host: String
        let port: Int
        let pathAndQuery: String
        let hostHeader: String

        init?(_ text: String) {
            guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
                  let host = components.host, !host.isEmpty, components.user == nil
            else { return nil }
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            port = components.port ?? 80
            guard (1...65535).contains(port) else { return nil }
            var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { path += "?" + query }
            guard !path.utf8.contains(where: { $0 < 0x21 || $0 == 0x7f }) else { return nil }
            pathAndQuery = path
            let name = self.host.contains(":") ? "[\(self.host)]" : self.host
            hostHeader = port == 80 ? name : "\(name):\(port)"
        }
    }

    private static func exchange(
        _ target: Target, headers: [(String, String)], body: [UInt8], deadline: ContinuousClock.Instant
    ) -> WebhookTransportResult {
        let connection: SocketConnection
        do {
            connection = try SocketConnection.connect(host: target.host, port: target.port, deadline: deadline)
        } catch {
            return .failed(error.kind == .timedOut ? "timed out connecting" : "connection refused")
        }
        var head = "POST \(target.pathAndQuery) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUser-Agent: paypanel/\(PayPanelVersion.current)\r\n"
            + "Connection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers where !name.contains(where: { $0 == "\r" || $0 == "\n" }) && !value.contains(where: { $0 == "\r" || $0 == "\n" }) {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        do {
            try connection.send(Array(head.utf8) + body, what: "sending the webhook")
            var reader = HTTPResponseReader(maximumBodyBytes: maximumBodyBytes, readsEveryBody: true)
            while !reader.isComplete {
                let bytes = try connection.receive(maximum: 16 * 1024, what: "waiting for the webhook's answer")
                if bytes.isEmpty {
                    try reader.endOfStream()
                    break
                }
                try reader.consume(bytes)
            }
            guard let status = reader.status else { return .failed("no status line") }
            return .response(status: status, retryAfter: WebhookTransportResult.retryAfterSeconds(reader.header("Retry-After"), now: Date()))
        } catch {
            return .failed(error.kind == .timedOut ? "timed out" : "connection lost")
        }
    }
}

/// A `WebhookTransport` that sends `http://` on `PlainHTTPPost` and hands `https://` to
/// `secure` (URLSession, in the program), or refuses it when there is none.
package struct PlainHTTPWebhookTransport: WebhookTransport {
    let secure: (any WebhookTransport)?

    package init(secure: (any WebhookTransport)? = nil) {
        self.secure = secure
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        if url.lowercased().hasPrefix("https://") {
            guard let secure else { return .failed("https is not supported by this sender (no TLS): use an http:// endpoint") }
            return await secure.post(url: url, headers: headers, body: body, timeout: timeout)
        }
        return await PlainHTTPPost.post(url: url, headers: headers, body: body, timeout: timeout)
    }
}
