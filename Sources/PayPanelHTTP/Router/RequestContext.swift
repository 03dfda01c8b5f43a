/// What a route handler receives: the request with typed accessors, the matched route and
/// its decoded path parameters.
public struct RequestContext: Sendable {
    public let request: HTTPRequest
    /// The route that matched; nil when none did (404 and 405, as middleware sees them).
    public let route: Router.Route?
    public let pathParameters: PathParameters

    /// A context; the router builds these, tests may too.
    public init(request: HTTPRequest, route: Router.Route?, pathParameters: PathParameters = PathParameters()) {
        self.request = request
        self.route = route
        self.pathParameters = pathParameters
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
