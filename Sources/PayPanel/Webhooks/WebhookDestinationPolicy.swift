import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which URLs the relay may post to. Every endpoint URL comes from a merchant's API call, so it
/// is a server-side request forgery waiting to happen: the host is resolved and *every*
/// address checked, and loopback, private (RFC 1918, fc00::/7), carrier-grade NAT,
/// link-local (which holds the cloud metadata service, 169.254.169.254), multicast and
/// unspecified addresses are refused, as is plain `http`, unless `allowPrivate` (development
/// and tests: `serve --allow-private-webhooks`).
///
/// DNS rebinding (docs/webhooks.md, "Destinations and DNS rebinding"): URLSession resolves the
/// name again when it connects, and on Linux it can neither be told which address to use nor
/// says afterwards which one it used, so a DNS server that answers differently the second time
/// is not stopped *before* the request. What is done: the host is resolved again right after
/// each delivery (`rebindingSuspicion`); an answer that now holds a non-public address disables
/// the endpoint, so a rebinding host gets at most one blind request through. A production
/// deployment should still send webhooks through an egress proxy that filters addresses.
package struct WebhookDestinationPolicy: Sendable {
    package let allowPrivate: Bool
    private let resolve: @Sendable (String) -> [IPAddress]?

    /// `resolve` defaults to the system resolver (`getaddrinfo`); tests give fixed answers.
    package init(allowPrivate: Bool, resolve: (@Sendable (String) -> [IPAddress]?)? = nil) {
        self.allowPrivate = allowPrivate
        self.resolve = resolve ?? { IPAddress.resolve($0) }
    }

    /// What the check decided about one URL.
    package enum Decision: Sendable, Equatable {
        case refused(String)
        /// Allowed; `checkedName` is the host name whose every address was checked (nil when
        /// nothing was resolved: an address literal, or `allowPrivate`).
        case allowed(checkedName: String?)
    }

    /// Nil when `url` may be posted to, else the reason it may not.
    package func refusal(for url: String) -> String? {
        if case .refused(let reason) = check(url) { return reason }
        return nil
    }

    /// Checks `url`: its scheme, and every address its host resolves to.
    package func check(_ url: String) -> Decision {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty
        else { return .refused("not an absolute http(s) URL") }
        guard scheme == "https" || (scheme == "http" && allowPrivate) else {
            return .refused(scheme == "http" ? "plain http is refused: use https (or serve --allow-private-webhooks in development)" : "the scheme must be https")
        }
        if allowPrivate { return .allowed(checkedName: nil) }
        let bare = Self.bareHost(host)
        if let literal = IPAddress(bare) {
            return literal.isPublic ? .allowed(checkedName: nil) : .refused(Self.privateReason(host, literal))
        }
        guard let addresses = resolve(bare), !addresses.isEmpty else { return .refused("the host \(JSONWriter.quoted(host)) does not resolve") }
        if let bad = addresses.first(where: { !$0.isPublic }) { return .refused(Self.privateReason(host, bad)) }
        return .allowed(checkedName: bare)
    }

    /// After a delivery to a checked host name: the name resolved again. Nil when every
    /// address is still public (or the name no longer resolves: no evidence either way); else
    /// why the delivery may have gone to an address the check never saw.
    package func rebindingSuspicion(checkedName: String) -> String? {
        guard let addresses = resolve(checkedName), let bad = addresses.first(where: { !$0.isPublic }) else { return nil }
        return "the host \(JSONWriter.quoted(checkedName)) resolved to a public address when checked and to \(bad) right after the delivery (DNS rebinding?): the endpoint is disabled; re-enable it only if the host is yours"
    }

    private static func bareHost(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    private static func privateReason(_ host: String, _ address: IPAddress) -> String {
        "the host \(JSONWriter.quoted(host)) resolves to \(address), a loopback, private, link-local or reserved address"
    }
}

/// An IPv4 or IPv6 address, as bytes.
package struct IPAddress: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes.
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a dotted IPv4 or a textual IPv6 address; nil for anything else (a host name).
    package init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// Every address `host` resolves to, or nil when it does not.
    package static func resolve(_ host: String) -> [IPAddress]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let socketAddress = entry.pointee.ai_addr {
                if entry.pointee.ai_family == AF_INET {
                    var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    if let ip = IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }) { addresses.append(ip) }
                } else if entry.pointee.ai_family == AF_INET6 {
                    var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    if let ip = IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }) { addresses.append(ip) }
                }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    /// False for every range a webhook must never reach.
    package var isPublic: Bool {
        if bytes.count == 4 { return Self.isPublicV4(bytes) }
        let b = bytes
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judge the IPv4 inside.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return Self.isPublicV4(Array(b[12...])) }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return false }  // ::, ::1 and the deprecated compatible form
        if b[0] == 0xfc || b[0] == 0xfd { return false }  // fc00::/7 unique local
        if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return false }  // fe80::/10 link-local
        if b[0] == 0xfe && (b[1] & 0xc0) == 0xc0 { return false }  // fec0::/10 site-local (deprecated)
        if b[0] == 0xff { return false }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return false }  // 2001:db8::/32 documentation
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b { return Self.isPublicV4(Array(b[12...])) }  // NAT64
        return true
    }

    private static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return false  // this network, private, loopback
        case (100, 64...127): return false  // carrier-grade NAT
        case (169, 254): return false  // link-local, including the metadata service
        case (172, 16...31), (192, 168): return false  // private
        case (192, 0) where b[2] == 0 || b[2] == 2: return false  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return false  // benchmarking
        case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return false  // TEST-NET-2, -3
        case (224...255, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    package var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
