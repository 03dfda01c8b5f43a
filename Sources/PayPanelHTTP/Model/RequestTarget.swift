/// A request target in origin-form (RFC 9112 §3.2.1: `/path?query`) or absolute-form
/// (§3.2.2: `http://host:port/path?query`, which a server must accept; what proxies and some
/// clients send), split and decoded. The path is decoded per segment, so `%2F` stays inside its
/// segment instead of adding one: `/v1/checkouts/a%2Fb/pay` has the segments `v1`,
/// `checkouts`, `a/b`, `pay`. Routing looks at the decoded segments only, never at `raw`.
public struct RequestTarget: Sendable, Equatable, CustomStringConvertible {
    /// The target exactly as received.
    public let raw: String
    /// The authority of an absolute-form target (`host:port`), nil for origin-form. The server
    /// serves one origin, so it is kept for logs and not compared with anything.
    public let authority: String?
    /// The path part as received, still percent-encoded; what access logs show. `/` for an
    /// absolute-form target with an empty path.
    public let path: String
    /// The decoded path segments; `/` has none, `/a/` has `a` and an empty one.
    public let pathSegments: [String]
    /// The query as received (after `?`, still encoded), or nil without a `?`.
    public let query: String?
    /// The decoded query items in order. `+` is kept as a plus sign (RFC 3986), not read
    /// as a space: Foundation's `URLComponents` leaves `+` unencoded in query values, so
    /// form-style decoding would corrupt values such as `a+b@example.com`.
    public let queryItems: [QueryItem]

    /// Parses and validates a target, e.g. `/v1/checkouts/ab%20c/pay?expand=items`.
    public init(parsing raw: String) throws(HTTPParseError) {
        try self.init(bytes: Array(raw.utf8)[...])
    }

    /// The first item named `name`'s value, or nil.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    public var description: String { raw }

    init(bytes: ArraySlice<UInt8>) throws(HTTPParseError) {
        raw = String(decoding: bytes, as: UTF8.self)
        var rest = bytes
        authority = try RequestTarget.takeAuthority(&rest)
        guard authority != nil || rest.first == HTTPGrammar.slash else {
            throw .badRequest("the request target must be a path starting with '/' (origin-form) or an http:// or https:// URL (absolute-form); '*' is not accepted")
        }
        let queryStart = rest.firstIndex(of: HTTPGrammar.questionMark)
        let pathBytes = rest[..<(queryStart ?? rest.endIndex)]
        let queryBytes = queryStart.map { rest[($0 + 1)...] }
        try RequestTarget.checkCharacters(pathBytes, allowing: [HTTPGrammar.slash], what: "path")
        if let queryBytes {
            // Square brackets are not query characters in RFC 3986, but Stripe-style parameters
            // (`metadata[order]=42`) are sent with them unencoded by browsers, curl -g and most
            // form encoders; they carry no meaning in a query, so they are accepted as they come.
            try RequestTarget.checkCharacters(
                queryBytes, allowing: [HTTPGrammar.slash, HTTPGrammar.questionMark, UInt8(ascii: "["), UInt8(ascii: "]")], what: "query")
        }
        path = pathBytes.isEmpty ? "/" : String(decoding: pathBytes, as: UTF8.self)
        pathSegments = try RequestTarget.decodeSegments(pathBytes.dropFirst())
        query = queryBytes.map { String(decoding: $0, as: UTF8.self) }
        queryItems = try queryBytes.map(RequestTarget.decodeQuery) ?? []
    }

    /// For an absolute-form target, removes `scheme://authority` from `bytes` (leaving the
    /// path and query) and returns the authority; nil, with `bytes` untouched, for any other form.
    private static func takeAuthority(_ bytes: inout ArraySlice<UInt8>) throws(HTTPParseError) -> String? {
        let lowered = bytes.prefix(8).map(HTTPGrammar.asciiLowercase)
        let schemeLength: Int
        if lowered.starts(with: Array("http://".utf8)) {
            schemeLength = 7
        } else if lowered.starts(with: Array("https://".utf8)) {
            schemeLength = 8
        } else {
            return nil
        }
        let afterScheme = bytes.dropFirst(schemeLength)
        let end = afterScheme.firstIndex { $0 == HTTPGrammar.slash || $0 == HTTPGrammar.questionMark } ?? afterScheme.endIndex
        let authority = afterScheme[..<end]
        guard !authority.isEmpty else {
            throw .badRequest("the absolute-form target has no host after '//'")
        }
        guard !authority.contains(UInt8(ascii: "@")) else {
            throw .badRequest("the absolute-form target has user information before its host, which is not allowed in HTTP URLs")
        }
        guard authority.allSatisfy(HTTPGrammar.isHostCharacter) else {
            throw .badRequest("the absolute-form target's host contains a byte that cannot appear in a host name, address or port")
        }
        bytes = afterScheme[end...]
        return String(decoding: authority, as: UTF8.self)
    }

    private static func checkCharacters(_ bytes: ArraySlice<UInt8>, allowing extra: [UInt8], what: String) throws(HTTPParseError) {
        for (offset, byte) in bytes.enumerated()
        where !(HTTPGrammar.isPathCharacter(byte) || byte == HTTPGrammar.percent || extra.contains(byte)) {
            let hint = byte == UInt8(ascii: "#") ? "; fragments are not sent to servers" : "; percent-encode it"
            throw .badRequest("the \(what) contains the byte \(HTTPGrammar.describe(byte)) at offset \(offset)\(hint)")
        }
    }

    private static func decodeSegments(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> [String] {
        guard !bytes.isEmpty else { return [] }
        var segments: [String] = []
        for segment in bytes.split(separator: HTTPGrammar.slash, omittingEmptySubsequences: false) {
            let decoded = try PercentDecoding.decode(segment, what: "path")
            // Dot segments mean "resolve me" to every URL library; an API path that still
            // has them was built by hand or is probing for traversal. Refuse both spellings.
            guard decoded != "." && decoded != ".." else {
                throw .badRequest("the path contains a '.' or '..' segment; send the resolved path")
            }
            segments.append(decoded)
        }
        return segments
    }

    private static func decodeQuery(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> [QueryItem] {
        var items: [QueryItem] = []
        for pair in bytes.split(separator: HTTPGrammar.ampersand) {
            let equals = pair.firstIndex(of: HTTPGrammar.equals)
            let name = try PercentDecoding.decode(pair[..<(equals ?? pair.endIndex)], what: "query")
            let value = try equals.map { (index) throws(HTTPParseError) in
                try PercentDecoding.decode(pair[(index + 1)...], what: "query")
            } ?? ""
            items.append(QueryItem(name: name, value: value))
        }
        return items
    }
}

/// One decoded `name=value` pair of a query; a bare `name` has an empty value.
public struct QueryItem: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let value: String

    /// A decoded pair.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }
}
