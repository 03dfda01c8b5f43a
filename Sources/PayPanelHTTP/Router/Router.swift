/// Routes requests by method and path pattern to handlers, Hummingbird-style, each route with
/// the credential it demands declared where it is registered:
///
/// ```swift
/// var router = Router()
/// router.use(.requestID())
/// router.get("/healthz", credential: .none) { _ in .text("ok") }
/// router.group(secretKey) { v1 in
///     v1.post("/v1/checkouts/{id}/cancel") { context in
///         let id = context.pathParameters["id"]!   // decoded, e.g. "ab c" for ab%20c
///         return .json(try await cancel(id))
///     }
/// }
/// let server = try HTTPServer.start(admission: router.admission)
/// ```
///
/// A request is decided in two steps (`admit`): match the decoded path to a route, then check
/// that route's credential on the head — before the body is read and before any handler runs.
/// Unknown paths get 404 and a known path with another method 405 with `Allow`, both without
/// reading a body or touching a handler. `HEAD` is answered by the `GET` route of the path
/// (RFC 9110 §9.3.2: same status and headers, the server sends no body). `table` lists every
/// route with its credential, so a test can check each one is documented and guarded. Adding a
/// malformed pattern or the same method and path shape twice is a programmer error and stops
/// the program with the reason.
public struct Router: Sendable {
    /// Answers one routed request; thrown errors become responses through `errorResponse`.
    public typealias Handler = @Sendable (RequestContext) async throws -> HTTPResponse

    /// A method and pattern pair.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public let method: HTTPMethod
        public let pattern: RoutePattern

        public var description: String { "\(method) \(pattern)" }
    }

    /// A route as registered: what it matches and what it demands.
    public struct Entry: Sendable {
        public let route: Route
        public let credential: any RouteCredential
        let handler: Handler
    }

    private var entries: [Entry] = []
    private var middleware: [Middleware] = []
    /// Turns an error thrown by a credential, a handler or middleware into a response. By
    /// default an `HTTPResponseError` gives its own response and anything else a bare 500,
    /// because an unexpected error's description may hold internals or data and must not
    /// reach a client.
    public var errorResponse: @Sendable (any Error, RequestContext) -> HTTPResponse = Router.defaultErrorResponse

    /// A router with no routes.
    public init() {}

    /// Every route, in the order added.
    public var routes: [Route] { entries.map(\.route) }

    /// Every route with its credential, in the order added.
    public var table: [Entry] { entries }

    /// Adds a route. Stops the program if `pattern` is malformed or the route already exists.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, credential: any RouteCredential, handler: @escaping Handler) {
        let parsed: RoutePattern
        do {
            parsed = try RoutePattern(pattern)
        } catch {
            preconditionFailure(error.description)
        }
        let duplicate = entries.contains { $0.route.method == method && $0.route.pattern.hasSameShape(as: parsed) }
        precondition(!duplicate, "the route \(method) \(pattern) is added twice (or with other parameter names)")
        precondition(method != .head, "HEAD is answered by the GET route of the same path; add that instead")
        entries.append(Entry(route: Route(method: method, pattern: parsed), credential: credential, handler: handler))
    }

    /// Adds a `GET` route (which answers `HEAD` too).
    public mutating func get(_ pattern: String, credential: any RouteCredential, handler: @escaping Handler) {
        add(.get, pattern, credential: credential, handler: handler)
    }
    /// Adds a `POST` route.
    public mutating func post(_ pattern: String, credential: any RouteCredential, handler: @escaping Handler) {
        add(.post, pattern, credential: credential, handler: handler)
    }
    /// Adds a `PUT` route.
    public mutating func put(_ pattern: String, credential: any RouteCredential, handler: @escaping Handler) {
        add(.put, pattern, credential: credential, handler: handler)
    }
    /// Adds a `PATCH` route.
    public mutating func patch(_ pattern: String, credential: any RouteCredential, handler: @escaping Handler) {
        add(.patch, pattern, credential: credential, handler: handler)
    }
    /// Adds a `DELETE` route.
    public mutating func delete(_ pattern: String, credential: any RouteCredential, handler: @escaping Handler) {
        add(.delete, pattern, credential: credential, handler: handler)
    }

    /// Adds the routes `build` registers, each demanding `credential`.
    public mutating func group(_ credential: any RouteCredential, _ build: (inout RouteGroup) -> Void) {
        var group = RouteGroup(router: self, credential: credential)
        build(&group)
        self = group.router
    }

    /// Adds a middleware; the first added runs outermost. Middleware sees every response:
    /// handlers' answers, refused credentials, 404s and 405s.
    public mutating func use(_ middleware: Middleware) {
        self.middleware.append(middleware)
    }

    /// Wraps every route's handler (after its credential was checked), e.g. to count runs.
    public mutating func wrapHandlers(_ wrap: (Route, @escaping Handler) -> Handler) {
        entries = entries.map { Entry(route: $0.route, credential: $0.credential, handler: wrap($0.route, $0.handler)) }
    }

    /// The router as the server's admission check (`HTTPServer.start(configuration:admission:)`).
    public var admission: HTTPAdmissionCheck {
        { [self] request in await admit(request) }
    }

    /// Routes `request` and checks its route's credential, from the head alone. Admitted: the
    /// returned closure answers the whole request (body read) through the middleware and the
    /// handler. Refused: the credential's error, or 404/405, already through the middleware.
    public func admit(_ request: HTTPRequest) async -> HTTPAdmission {
        let (entry, context): (Entry, RequestContext)
        switch resolve(request) {
        case .matched(let matched, let matchedContext): (entry, context) = (matched, matchedContext)
        case .unmatched(let context, let refusal): return .refused(await respond(context, through: refusal))
        }
        let principal: (any Sendable)?
        do {
            principal = try await entry.credential.authenticate(context)
        } catch {
            return .refused(await respond(context) { _ in throw error })
        }
        let parameters = context.pathParameters
        let route = entry.route
        return .admitted { [self] request in
            let context = RequestContext(request: request, route: route, pathParameters: parameters, principal: principal)
            return await respond(context, through: entry.handler)
        }
    }

    /// Routes `request` through its credential, the middleware and its handler, or to the
    /// refusal: one step, for requests whose body is already in hand (tests, adapters).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch await admit(request) {
        case .admitted(let respond): await respond(request)
        case .refused(let response): response
        }
    }

    /// The default `errorResponse`.
    @Sendable public static func defaultErrorResponse(_ error: any Error, context: RequestContext) -> HTTPResponse {
        if let error = error as? any HTTPResponseError { return error.response(for: context) }
        return .text("internal server error\n", status: .internalServerError)
    }

    /// Runs `endpoint` inside the middleware chain; errors become responses at each level.
    private func respond(_ context: RequestContext, through endpoint: @escaping Handler) async -> HTTPResponse {
        let errorResponse = errorResponse
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

    private enum Resolution {
        case matched(Entry, RequestContext)
        /// No route for this method and path: the 404 or 405 to answer instead.
        case unmatched(RequestContext, Handler)
    }

    /// The matched route (the most specific one), or the 404/405 to answer instead.
    private func resolve(_ request: HTTPRequest) -> Resolution {
        let segments = request.target.pathSegments
        // HEAD is served by GET's route: the same status and headers, and no body is sent.
        let method = request.method == .head ? .get : request.method
        var best: (entry: Entry, parameters: [String: String])?
        var allowed: Set<HTTPMethod> = []
        for entry in entries {
            guard let parameters = entry.route.pattern.match(segments) else { continue }
            allowed.insert(entry.route.method)
            if entry.route.method == .get { allowed.insert(.head) }
            guard entry.route.method == method else { continue }
            if best.map({ entry.route.pattern.isMoreSpecific(than: $0.entry.route.pattern) }) ?? true {
                best = (entry, parameters)
            }
        }
        if let best {
            let context = RequestContext(request: request, route: best.entry.route, pathParameters: PathParameters(best.parameters))
            return .matched(best.entry, context)
        }
        let context = RequestContext(request: request, route: nil)
        guard !allowed.isEmpty else {
            return .unmatched(context, { _ in throw HTTPError(.notFound, "no route matches this path") })
        }
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        return .unmatched(context, { context in
            throw HTTPError(.methodNotAllowed, "\(context.method) is not allowed here; allowed: \(allow)", headers: ["Allow": allow])
        })
    }
}

/// Routes registered together under one credential (`Router.group`).
public struct RouteGroup {
    fileprivate var router: Router
    /// What every route of the group demands.
    public let credential: any RouteCredential

    fileprivate init(router: Router, credential: any RouteCredential) {
        self.router = router
        self.credential = credential
    }

    /// Adds a route demanding the group's credential.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: @escaping Router.Handler) {
        router.add(method, pattern, credential: credential, handler: handler)
    }
    /// Adds a `GET` route (which answers `HEAD` too).
    public mutating func get(_ pattern: String, handler: @escaping Router.Handler) { add(.get, pattern, handler: handler) }
    /// Adds a `POST` route.
    public mutating func post(_ pattern: String, handler: @escaping Router.Handler) { add(.post, pattern, handler: handler) }
    /// Adds a `PUT` route.
    public mutating func put(_ pattern: String, handler: @escaping Router.Handler) { add(.put, pattern, handler: handler) }
    /// Adds a `PATCH` route.
    public mutating func patch(_ pattern: String, handler: @escaping Router.Handler) { add(.patch, pattern, handler: handler) }
    /// Adds a `DELETE` route.
    public mutating func delete(_ pattern: String, handler: @escaping Router.Handler) { add(.delete, pattern, handler: handler) }
}
