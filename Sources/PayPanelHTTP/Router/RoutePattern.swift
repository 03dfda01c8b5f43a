/// A route's path pattern: literal segments and whole-segment parameters, such as
/// `/v1/checkouts/{id}/pay`. Literals are compared with the request's decoded segments, so
/// `/v1/caf%C3%A9` matches the literal `café`; a parameter matches one non-empty segment.
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// One segment of a pattern.
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// The pattern as written.
    public let text: String
    public let segments: [Segment]

    /// Parses a pattern; the reason says what is wrong with a malformed one.
    public init(_ text: String) throws(RoutePatternError) {
        guard text.hasPrefix("/") else {
            throw RoutePatternError(pattern: text, reason: "a pattern starts with '/'")
        }
        self.text = text
        let pieces = text == "/" ? [] : text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var segments: [Segment] = []
        var names: Set<String> = []
        for piece in pieces {
            let segment = try RoutePattern.segment(piece, in: text)
            if case .parameter(let name) = segment, !names.insert(name).inserted {
                throw RoutePatternError(pattern: text, reason: "the parameter {\(name)} appears twice")
            }
            segments.append(segment)
        }
        self.segments = segments
    }

    public var description: String { text }

    /// The parameter names, in order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// The parameters when the decoded `pathSegments` match, or nil.
    func match(_ pathSegments: [String]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, pathSegments) {
            switch segment {
            case .literal(let literal):
                guard literal == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }

    /// Whether two patterns match exactly the same paths (parameter names aside).
    func hasSameShape(as other: RoutePattern) -> Bool {
        segments.count == other.segments.count && zip(segments, other.segments).allSatisfy { lhs, rhs in
            switch (lhs, rhs) {
            case (.literal(let a), .literal(let b)): a == b
            case (.parameter, .parameter): true
            default: false
            }
        }
    }

    /// Whether this pattern wins over `other` when both match: at the first segment where
    /// one has a literal and the other a parameter, the literal wins, so `/checkouts/search`
    /// beats `/checkouts/{id}` whatever order they were added in.
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (lhs, rhs) in zip(segments, other.segments) {
            switch (lhs, rhs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }

    private static func segment(_ piece: Substring, in text: String) throws(RoutePatternError) -> Segment {
        if piece.hasPrefix("{") && piece.hasSuffix("}") && piece.count >= 2 {
            let name = piece.dropFirst().dropLast()
            guard let first = name.first, first == "_" || (first.isASCII && first.isLetter),
                name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
            else {
                throw RoutePatternError(pattern: text, reason: "a parameter name is a letter or '_' followed by letters, digits or '_'")
            }
            return .parameter(String(name))
        }
        guard !piece.isEmpty else {
            throw RoutePatternError(pattern: text, reason: "a pattern has no empty segments (no '//' and no trailing '/')")
        }
        guard !piece.contains("{") && !piece.contains("}") else {
            throw RoutePatternError(pattern: text, reason: "a parameter takes a whole segment, as in /items/{id}")
        }
        guard piece != "." && piece != ".." else {
            throw RoutePatternError(pattern: text, reason: "'.' and '..' segments can never match a request")
        }
        return .literal(String(piece))
    }
}

/// Why a route pattern was refused.
public struct RoutePatternError: Error, Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    public let reason: String

    public var description: String { "invalid route pattern \(pattern): \(reason)" }
}
