import Foundation
import PayPanelHTTP

/// What a hostile client tries against a router's table: every route's path spelled the ways
/// that decode to it or near it, and the wrong credentials. Generated from `Router.table`, so a
/// route added later is probed without editing a test.
public enum RouteProbe {
    /// A concrete path for `pattern`, each `{name}` replaced by `value(name)`.
    public static func path(for pattern: RoutePattern, value: (String) -> String) -> String {
        guard !pattern.segments.isEmpty else { return "/" }
        return "/" + pattern.segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): value(name)
            }
        }.joined(separator: "/")
    }

    /// Spellings of `path` (no query) that decode to the same route or to one beside it:
    /// percent-encoded letters and digits (one at a time and a whole segment), `%2F` for a
    /// slash, doubled and trailing slashes, other letter cases, dot segments plain and encoded,
    /// a path parameter, and the absolute form.
    public static func spellings(of path: String, authority: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard !segments.isEmpty, segments != [""] else { return ["//", "/%2F", "/.", "/%2e", "http://\(authority)"] }
        var spellings: [String] = []
        func join(_ parts: [String]) -> String { "/" + parts.joined(separator: "/") }
        for (index, segment) in segments.enumerated() {
            var parts = segments
            // The first letter and the first digit encoded on their own, then the whole segment.
            if let letter = segment.first(where: \.isLetter) {
                parts[index] = segment.replacingFirst(letter, with: encoded(letter))
                spellings.append(join(parts))
                parts[index] = segment.replacingFirst(letter, with: encoded(letter).lowercased())
                spellings.append(join(parts))
            }
            if let digit = segment.first(where: \.isNumber) {
                parts[index] = segment.replacingFirst(digit, with: encoded(digit))
                spellings.append(join(parts))
            }
            parts[index] = segment.map(encoded).joined()
            spellings.append(join(parts))
            // Other letter cases.
            parts[index] = segment.uppercased()
            if parts[index] != segment { spellings.append(join(parts)) }
            // A path parameter (`;x`), which some servers strip before matching.
            parts[index] = segment + ";x"
            spellings.append(join(parts))
            // An encoded slash in place of a real one, and a doubled slash.
            if index + 1 < segments.count {
                spellings.append("/" + segments[...index].joined(separator: "/") + "%2F" + segments[(index + 1)...].joined(separator: "/"))
                spellings.append("/" + segments[...index].joined(separator: "/") + "//" + segments[(index + 1)...].joined(separator: "/"))
            }
            // Dot segments before this one: plain, encoded, and climbing back out of a detour.
            for dots in ["./", "%2e/", "%2E%2E/", "x/../", "x/%2e%2e/"] {
                spellings.append("/" + segments[..<index].map { $0 + "/" }.joined() + dots + segments[index...].joined(separator: "/"))
            }
        }
        spellings += ["/" + path.dropFirst(), "/" + path, path + "/", path + "/.", path + "%2F", "http://\(authority)\(path)", "HTTP://\(authority)\(path)"]
        return Array(Set(spellings)).sorted()
    }

    private static func encoded(_ character: Character) -> String {
        character.utf8.map { String(format: "%%%02X", $0) }.joined()
    }

    /// Sends one request on a connection of its own and returns the status (0 when the server
    /// closed without answering). A request with a body announces and sends it whole.
    public static func send(
        port: Int, method: String, target: String, headers: [(String, String)], body: String? = nil
    ) throws -> Int {
        let client = try RawClient.connect(to: port)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        head += "\r\n" + (body ?? "")
        try client.send(head)
        do {
            return method == "HEAD" ? try client.readHeadResponse().status : try client.readResponse().status
        } catch {
            return 0
        }
    }
}

extension String {
    fileprivate func replacingFirst(_ character: Character, with replacement: String) -> String {
        guard let index = firstIndex(of: character) else { return self }
        return String(self[..<index]) + replacement + String(self[self.index(after: index)...])
    }
}
