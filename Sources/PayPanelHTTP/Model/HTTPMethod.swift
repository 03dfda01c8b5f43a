/// A request method: any token the client sends (methods are case-sensitive, RFC 9110 §9.1),
/// with constants for the common ones. The router matches on the exact spelling.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method as sent, e.g. `GET`.
    public let rawValue: String

    /// Wraps a method name; the parser only ever builds these from valid tokens.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Lets routes be written as `"PATCH"`.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
}

/// The protocol versions this server speaks; anything else is refused with 505 while parsing.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    case http1_0
    case http1_1

    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        }
    }
}
