/// The answer to "may this request go on?", asked once its head is complete and before any of
/// its body is read (`HTTPServer.start(configuration:admission:)`; a `Router` answers it by
/// matching the route and checking the route's credential).
///
/// Why before the body: a server that buffers a body before it knows who sent it lets any
/// anonymous client make it hold megabytes per connection. Refused here, a request costs its
/// head only; its body stays in the kernel until the lingering close discards it.
public enum HTTPAdmission: Sendable {
    /// Go on: read the body (answering `Expect: 100-continue` first), then answer with
    /// `respond`, which already knows the route and the caller.
    case admitted(respond: @Sendable (HTTPRequest) async -> HTTPResponse)
    /// Answer this without reading the body. When a body was announced the connection is
    /// closed after the answer (its framing is unread), so a refusal can never be followed by
    /// the unread body parsed as the next request.
    case refused(HTTPResponse)
}

/// Decides whether a request may go on, from its head (`HTTPRequest.body` is empty).
public typealias HTTPAdmissionCheck = @Sendable (HTTPRequest) async -> HTTPAdmission
