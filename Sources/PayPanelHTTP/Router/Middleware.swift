import Foundation

/// A cross-cutting step around every request the router answers (request ids, logging,
/// authentication): it gets the context and the rest of the chain, and returns a response.
/// Middleware added first runs outermost. `next` always returns a response — errors thrown
/// further in have already become one — so middleware sees every status, 404s included.
public struct Middleware: Sendable {
    /// The rest of the chain.
    public typealias Next = @Sendable (RequestContext) async -> HTTPResponse

    let body: @Sendable (RequestContext, Next) async throws -> HTTPResponse

    /// A middleware from a closure; what it throws becomes a response via the router.
    public init(_ body: @escaping @Sendable (RequestContext, Next) async throws -> HTTPResponse) {
        self.body = body
    }

    /// Echoes the server's request id in a response header, so a client can quote it and an
    /// operator can find the request in the access log.
    public static func requestID(header name: String = "X-Request-ID") -> Middleware {
        Middleware { context, next in
            var response = await next(context)
            response.headers.replaceOrAdd(name: name, value: context.requestID)
            return response
        }
    }

    /// Reports each routed request with the route's pattern in place of the path — so ids in
    /// paths (`/v1/checkouts/{id}`) stay out of the log — or the raw path when nothing matched.
    /// Duration is the router's time only; the server's access log measures from the first byte.
    public static func accessLog(
        clock: ContinuousClock = ContinuousClock(), _ sink: @escaping @Sendable (HTTPAccessLogEntry) -> Void
    ) -> Middleware {
        Middleware { context, next in
            let started = clock.now
            let response = await next(context)
            sink(HTTPAccessLogEntry(
                time: .now, requestID: context.requestID, method: context.method,
                path: context.route?.pattern.text ?? context.path, status: response.status,
                duration: started.duration(to: clock.now)))
            return response
        }
    }
}
