/// Why a request was refused while parsing: the status to answer with and a reason written
/// for the client's developer. Reasons name positions and byte values, never request text,
/// because they are also handed to the server's event log.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status of the response that refuses the request.
    public let status: HTTPStatus
    /// What was wrong and, where it helps, what to do instead.
    public let reason: String

    /// A refusal with its status and reason.
    public init(_ status: HTTPStatus, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status): \(reason)" }

    static func badRequest(_ reason: String) -> HTTPParseError {
        HTTPParseError(.badRequest, reason)
    }
}
