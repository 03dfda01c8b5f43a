import Foundation

/// Where an outgoing request goes: scheme, host, port and request target, already checked by
/// the caller's own URL rules (media locations, processor endpoints, webhook URLs).
package struct HTTPClientURL: Sendable, Equatable, CustomStringConvertible {
    package var isSecure: Bool
    /// The host without brackets (`::1`, not `[::1]`).
    package var host: String
    package var port: Int
    /// Path and query, starting with `/`.
    package var target: String

    package init(isSecure: Bool, host: String, port: Int, target: String) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.target = target
    }

    /// `Host:` header: IPv6 in brackets, the port only when it is not the scheme's default.
    package var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    package var description: String { "\(isSecure ? "https" : "http")://\(hostHeader)\(target)" }

    /// `http(s)://host[:port]/path?query`; nil for another scheme, no host, a user name (it
    /// would be sent nowhere and may be a secret), a port out of range, or a target holding
    /// spaces or control characters (they would split the request line).
    package init?(string text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil
        else { return nil }
        let isSecure = scheme == "https"
        let port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        guard !path.utf8.contains(where: { $0 < 0x21 || $0 == 0x7f }) else { return nil }
        self.init(
            isSecure: isSecure, host: host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host, port: port,
            target: path)
    }
}

/// One outgoing request. `body` nil sends no `Content-Length` (a GET); an empty body sends
/// `Content-Length: 0`.
package struct HTTPClientRequest: Sendable {
    package var method: String
    package var url: HTTPClientURL
    /// Sent in this order after `Host` and `User-Agent`. A name or value holding CR or LF is
    /// dropped, not sent: it would split the head and smuggle a header or a second request.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]?
    /// True when the receiver recognises a second copy of this request (APNs by its `apns-id`
    /// and collapse id, a webhook receiver by the event id), so that sending it twice is safe.
    /// Then a request that loses a kept connection under it (the peer closed or reset it, as
    /// an HTTP/2 GOAWAY does) is sent once more at once, on a new connection: a kept
    /// connection's close says nothing about whether the peer can be reached. Never set on a
    /// payment call: whether one may be repeated is decided above the client, by its
    /// idempotency key.
    package var mayBeSentTwice: Bool

    package init(
        _ method: String, _ url: HTTPClientURL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, mayBeSentTwice: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.mayBeSentTwice = mayBeSentTwice
    }

    /// The headers that can be sent (see `headers`).
    var sendableHeaders: [(name: String, value: String)] {
        headers.filter { !$0.name.contains(where: \.isNewline) && !$0.value.contains(where: \.isNewline) && !$0.name.isEmpty }
    }

    /// The HTTP/1.1 request head and body, as written on the socket: the one place PayPanel
    /// writes a request line. One request per connection (`Connection: close`), so a reply is
    /// read to the end of the stream and no pipelining state is kept.
    func encoded(userAgent: String) -> [UInt8] {
        var head = "\(method) \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: \(userAgent)\r\n"
        for header in sendableHeaders { head += "\(header.name): \(header.value)\r\n" }
        head += "Connection: close\r\n"
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }
}

/// A complete answer, of any status.
package struct HTTPClientResponse: Sendable {
    package let status: Int
    package let headers: [(name: String, value: String)]
    package let body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
