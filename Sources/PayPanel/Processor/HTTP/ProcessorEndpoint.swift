/// Where a processor's HTTP API is: `http://host[:port]`, without a path. Plain HTTP only: the
/// built-in socket client has no TLS (see `ProcessorHTTPClient`), so this is for a processor on
/// loopback or a private network, such as `paypanel processor serve`.
public struct ProcessorEndpoint: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    /// Parses `http://127.0.0.1:12111`, `http://localhost`, `http://[::1]:12111` (a trailing
    /// `/` is fine).
    public init(_ text: String) throws(ProcessorEndpointError) {
        var rest = Substring(text)
        guard rest.lowercased().hasPrefix("http://") else {
            if text.lowercased().hasPrefix("https://") {
                throw ProcessorEndpointError(text: text, reason: "https is not supported by the built-in client (no TLS library is linked): use http:// to a processor on loopback or a private network, or terminate TLS in a local proxy")
            }
            throw ProcessorEndpointError(text: text, reason: "it must start with http://")
        }
        rest = rest.dropFirst(7)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("@") else {
            throw ProcessorEndpointError(text: text, reason: "give only the scheme, host and port (no path, query or user)")
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw ProcessorEndpointError(text: text, reason: "the IPv6 address has no closing ']'") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ProcessorEndpointError(text: text, reason: "expected ':port' after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, host.utf8.count <= 253,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") })
        else { throw ProcessorEndpointError(text: text, reason: "the host is empty or has characters a host name cannot have") }
        var port = 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText), (1...65535).contains(value) else {
                throw ProcessorEndpointError(text: text, reason: "the port must be a number from 1 to 65535")
            }
            port = value
        }
        self.host = String(host)
        self.port = port
    }

    /// The `Host` header's value.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    public var description: String { "http://\(hostHeader)" }
}

/// A processor URL that cannot be used.
public struct ProcessorEndpointError: PayPanelError, Equatable {
    public let text: String
    public let reason: String
    public var code: String { "invalid_processor_url" }
    public var message: String { "processor URL \(JSONWriter.quoted(text)): \(reason)" }
}
