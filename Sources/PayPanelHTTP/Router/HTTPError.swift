/// An error that knows the response it becomes. Handlers and middleware throw these; the
/// router turns them into responses once, at the edge, so an API decides its error envelope
/// in one place (by adopting this protocol, or with `Router.errorResponse`).
public protocol HTTPResponseError: Error {
    /// The response for this error.
    func response(for context: RequestContext) -> HTTPResponse
}

/// A plain error response: a status, a reason sent as text, and extra headers (such as
/// `Allow` on a 405). The router throws these for 404 and 405.
public struct HTTPError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPStatus
    public let reason: String
    public let headers: HTTPHeaders

    /// An error with its status, reason and extra headers.
    public init(_ status: HTTPStatus, _ reason: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// The reason as `text/plain`, with the status and extra headers.
    public func response(for context: RequestContext) -> HTTPResponse {
        .text(reason + "\n", status: status, headers: headers)
    }

    public var description: String { "\(status): \(reason)" }
}
