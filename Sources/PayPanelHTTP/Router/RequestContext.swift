/// What a route handler receives: the request with typed accessors, the matched route, its
/// decoded path parameters and the caller its credential proved.
public struct RequestContext: Sendable {
    public let request: HTTPRequest
    /// The route that matched; nil when none did (404 and 405, as middleware sees them).
    public let route: Router.Route?
    public let pathParameters: PathParameters
    /// Who the route's credential proved the caller to be (an API key's record, say); nil for
    /// a route without a credential, and while the credential itself is being checked.
    public let principal: (any Sendable)?

    /// A context; the router builds these, tests may too.
    public init(request: HTTPRequest, route: Router.Route?, pathParameters: PathParameters = PathParameters(), principal: (any Sendable)? = nil) {
        self.request = request
        self.route = route
        self.pathParameters = pathParameters
        self.principal = principal
    }

    /// The principal when it is a `T`.
    public func principal<T>(as type: T.Type) -> T? {
        principal as? T
    }

    public var requestID: String { request.id }
    public var method: HTTPMethod { request.method }
    /// The path as received, still percent-encoded.
    public var path: String { request.target.path }
    /// The decoded path segments.
    public var pathSegments: [String] { request.target.pathSegments }
    public var queryItems: [QueryItem] { request.target.queryItems }
    /// Header lookup is case-insensitive: `context.headers["content-type"]`.
    public var headers: HTTPHeaders { request.headers }
    public var body: [UInt8] { request.body }
    public var remoteAddress: HTTPRemoteAddress? { request.remoteAddress }
}

/// The decoded values of a route's `{name}` segments.
public struct PathParameters: Sendable, Equatable {
    private let values: [String: String]

    /// Parameters by name.
    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// The decoded value of `{name}`, or nil when the route has no such parameter.
    public subscript(name: String) -> String? { values[name] }

    /// Every parameter by name.
    public var all: [String: String] { values }
}
