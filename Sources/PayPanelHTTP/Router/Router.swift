/// Routes requests by method and path pattern to handlers, Hummingbird-style:
///
/// ```swift
/// var router = Router()
/// router.use(.requestID())
/// router.post("/v1/checkouts/{id}/pay") { context in
///     let id = context.pathParameters["id"]!   // decoded, e.g. "ab c" for ab%20c
///     return .json(try await pay(id, context.body))
/// }
/// let server = try HTTPServer.start(handler: router.handler)
/// ```
///
/// Unknown paths get 404; a known path with another method gets 405 with `Allow` listing the
/// methods that path does take. `routes` lists every route, so a test can check each one is
/// documented (in an OpenAPI file, say). Adding a malformed pattern or the same method and
/// path shape twice is a programmer error and stops the program with the reason.
public struct Router: Sendable {
    /// Answers one routed request; thrown errors become responses through `errorResponse`.
    public typealias Handler = @Sendable (RequestContext) async throws -> HTTPResponse

    /// A method and pattern pair.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public let method: HTTPMethod
        public let pattern: RoutePattern

        public var description: String { "\(method) \(pattern)" }
    }

    private var entries: [(route: Route, handler: Handler)] = []
    private var middleware: [Middleware] = []
    /// Turns an error thrown by a handler or middleware into a response. By default an
    /// `HTTPResponseError` gives its own response and anything else a bare 500, because an
    /// unexpected error's description may hold internals or data and must not reach a client.
    public var errorResponse: @Sendable (any Error, RequestContext) -> HTTPResponse = Router.defaultErrorResponse

    /// A router with no routes.
    public init() {}

    /// Every route, in the order added.
    public var routes: [Route] { entries.map(\.route) }

    /// Adds a route. Stops the program if `pattern` is malformed or the route already exists.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: @escaping Handler) {
        let parsed: RoutePattern
        do {
            parsed = try RoutePattern(pattern)
        } catch {
            preconditionFailure(error.description)
        }
        let duplicate = entries.contains { $0.route.method == method && $0.route.pattern.hasSameShape(as: parsed) }
        precondition(!duplicate, "the route \(method) \(pattern) is added twice (or with other parameter names)")
        entries.append((Route(method: method, pattern: parsed), handler))
    }

    /// Adds a `GET` route.
    public mutating func get(_ pattern: String, handler: @escaping Handler) { add(.get, pattern, handler: handler) }
    /// Adds a `POST` route.
    public mutating func post(_ pattern: String, handler: @escaping Handler) { add(.post, pattern, handler: handler) }
    /// Adds a `PUT` route.
    public mutating func put(_ pattern: String, handler: @escaping Handler) { add(.put, pattern, handler: handler) }
    /// Adds a `PATCH` route.
    public mutating func patch(_ pattern: String, handler: @escaping Handler) { add(.patch, pattern, handler: handler) }
    /// Adds a `DELETE` route.
    public mutating func delete(_ pattern: String, handler: @escaping Handler) { add(.delete, pattern, handler: handler) }

    /// Adds a middleware; the first added runs outermost.
    public mutating func use(_ middleware: Middleware) {
        self.middleware.append(middleware)
    }

    /// The router as a server handler.
    public var handler: HTTPServer.Handler {
        { [self] request in await respond(to: request) }
    }

    /// Routes `request` through the middleware to its handler, or to a 404 or 405.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let errorResponse = errorResponse
        let (context, endpoint) = resolve(request)
        let innermost: Middleware.Next = { context in
            do {
                return try await endpoint(context)
            } catch {
                return errorResponse(error, context)
            }
        }
        let chain = middleware.reversed().reduce(innermost) { next, middleware in
            { context in
                do {
                    return try await middleware.body(context, next)
                } catch {
                    return errorResponse(error, context)
                }
            }
        }
        return await chain(context)
    }

    /// The default `errorResponse`.
    @Sendable public static func defaultErrorResponse(_ error: any Error, context: RequestContext) -> HTTPResponse {
        if let error = error as? any HTTPResponseError { return error.response(for: context) }
        return .text("internal server error\n", status: .internalServerError)
    }

    private func resolve(_ request: HTTPRequest) -> (RequestContext, Handler) {
        let segments = request.target.pathSegments
        var best: (entry: (route: Route, handler: Handler), parameters: [String: String])?
        var allowed: Set<HTTPMethod> = []
        for entry in entries {
            guard let parameters = entry.route.pattern.match(segments) else { continue }
            allowed.insert(entry.route.method)
            guard entry.route.method == request.method else { continue }
            if best.map({ entry.route.pattern.isMoreSpecific(than: $0.entry.route.pattern) }) ?? true {
                best = (entry, parameters)
            }
        }
        if let best {
            let context = RequestContext(request: request, route: best.entry.route, pathParameters: PathParameters(best.parameters))
            return (context, best.entry.handler)
        }
        let context = RequestContext(request: request, route: nil)
        guard !allowed.isEmpty else {
            return (context, { _ in throw HTTPError(.notFound, "no route matches this path") })
        }
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        return (context, { context in
            throw HTTPError(.methodNotAllowed, "\(context.method) is not allowed here; allowed: \(allow)", headers: ["Allow": allow])
        })
    }
}
