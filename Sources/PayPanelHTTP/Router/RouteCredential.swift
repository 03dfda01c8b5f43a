/// What a route demands of a request before the server reads its body or runs its handler,
/// declared where the route is registered (as Hummingbird attaches middleware to a route
/// group). The router checks it after it has matched the decoded path, on the route that will
/// run, so no spelling of a path can reach a handler without passing its route's credential;
/// nothing else in the server decides by looking at path text.
///
/// ```swift
/// router.group(SecretKeyCredential(keys)) { v1 in
///     v1.post("/v1/refunds") { context in … context.principal(as: APIKeyRecord.self) … }
/// }
/// router.get("/healthz", credential: .none) { _ in .text("ok") }
/// ```
public protocol RouteCredential: Sendable {
    /// How docs, tests and error messages name it: "secret key", "none".
    var name: String { get }
    /// Checks the request on the route it matched, from the head alone (the body has not been
    /// read). Returns who the caller is, for the handler (`RequestContext.principal`), or nil
    /// when there is nothing to tell; throws an `HTTPResponseError` (401, 403…) to refuse.
    func authenticate(_ context: RequestContext) async throws -> (any Sendable)?
}

/// A credential that a request either carries or does not (a particular bearer token, say),
/// so it can be offered beside another one: `EitherCredential` asks it first.
public protocol AlternativeRouteCredential: RouteCredential {
    /// Whether the request carries this credential at all (right or wrong).
    func isCarried(by context: RequestContext) -> Bool
}

/// No credential: health checks, public documents, static pages.
public struct NoCredential: RouteCredential {
    public init() {}
    public var name: String { "none" }
    public func authenticate(_ context: RequestContext) async throws -> (any Sendable)? { nil }
}

extension RouteCredential where Self == NoCredential {
    /// A public route: anyone may call it.
    public static var none: NoCredential { NoCredential() }
}

/// `preferred` when the request carries it, else `otherwise`: a narrow credential (a demo
/// key that may do three things) beside the general one, without either one skipping a check.
public struct EitherCredential: RouteCredential {
    public let preferred: any AlternativeRouteCredential
    public let otherwise: any RouteCredential

    /// The two credentials, the narrow one first.
    public init(_ preferred: any AlternativeRouteCredential, otherwise: any RouteCredential) {
        self.preferred = preferred
        self.otherwise = otherwise
    }

    public var name: String { "\(preferred.name) or \(otherwise.name)" }

    public func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        if preferred.isCarried(by: context) { return try await preferred.authenticate(context) }
        return try await otherwise.authenticate(context)
    }
}
