import Foundation

/// What a webhook endpoint's URL must be before it is stored: an absolute http(s) URL, printable
/// ASCII, no user, password or fragment, a host that can be reached (a host name, an IPv4
/// address, or a bracketed IPv6 address that really is one) and a port in 1...65535.
///
/// One rule for `serve`'s `/v1/webhook_endpoints` and for `processor serve`'s, and the same
/// language as the OpenAPI pattern `WebhookURLRule.pattern` (a test holds the two together):
/// a URL stored here is echoed back to clients, which parse it (Python's `urlsplit` raises on
/// `[AecD:03]`, which only looked like an IPv6 address).
package enum WebhookURLRule {
    package static let maximumBytes = 2048

    /// Why `url` can never be a webhook URL, or nil when it can. Where it points (loopback,
    /// private…) is decided when sending, by `WebhookDestinationPolicy`: names resolve
    /// differently over time.
    package static func problem(_ url: String) -> String? {
        guard (8...maximumBytes).contains(url.utf8.count), let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host, !host.isEmpty
        else {
            return "the endpoint URL must be an absolute https:// URL of at most \(maximumBytes) characters"
        }
        // URLComponents lets control characters and spaces through.
        guard url.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "the endpoint URL holds a space, a control character or a character outside ASCII: percent-encode it"
        }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            return "the endpoint URL must not carry a user, a password or a #fragment"
        }
        guard isReachableHost(components.percentEncodedHost ?? host) else {
            return "the endpoint URL's host must be a host name, an IPv4 address or a bracketed IPv6 address such as [2001:db8::1]"
        }
        if let port = components.port, !(1...65535).contains(port) {
            return "the endpoint URL's port must be 1 to 65535, not \(port)"
        }
        return nil
    }

    /// A host as written in the URL (not percent-decoded): ASCII letters, digits, '-' and '.',
    /// or `[` an address `inet_pton` reads as IPv6 `]` (no zone: `%` is not allowed in a name).
    static func isReachableHost(_ written: String) -> Bool {
        if written.hasPrefix("[") && written.hasSuffix("]") && written.count > 2 {
            let inner = String(written.dropFirst().dropLast())
            return inner.contains(":") && IPAddress(inner)?.bytes.count == 16
        }
        return written.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".")
        }
    }

    /// The same language as a regular expression, for the OpenAPI documents: the IPv6 forms are
    /// RFC 3986's `IPv6address` (with its embedded dotted IPv4), the port 1...65535.
    package static let pattern: String = {
        let h16 = "[0-9A-Fa-f]{1,4}"
        let octet = "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
        let ipv4 = "\(octet)(\\.\(octet)){3}"
        let ls32 = "(\(h16):\(h16)|\(ipv4))"
        func leading(_ most: Int) -> String { most < 0 ? "" : "((\(h16):){0,\(most)}\(h16))?" }
        let ipv6 = [
            "(\(h16):){6}\(ls32)",
            "::(\(h16):){5}\(ls32)",
            "\(leading(0))::(\(h16):){4}\(ls32)",
            "\(leading(1))::(\(h16):){3}\(ls32)",
            "\(leading(2))::(\(h16):){2}\(ls32)",
            "\(leading(3))::\(h16):\(ls32)",
            "\(leading(4))::\(ls32)",
            "\(leading(5))::\(h16)",
            "\(leading(6))::",
        ].joined(separator: "|")
        let port = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
        return "^https?://([A-Za-z0-9.-]+|\\[(\(ipv6))\\])(:\(port))?(/[!$%&-;=?-Z_a-z~]*)?$"
    }()
}
