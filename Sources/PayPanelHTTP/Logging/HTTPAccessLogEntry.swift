import Foundation

/// One line of the access log, produced once per request — including the ones the server
/// refused itself. It has no headers, no body and no query: those may carry card data,
/// tokens or personal data, and a log is the wrong place for any of them.
public struct HTTPAccessLogEntry: Sendable, CustomStringConvertible {
    /// When the response was handed to the socket.
    public let time: Date
    public let requestID: String
    /// Nil when the request was refused before its request line was complete.
    public let method: HTTPMethod?
    /// The path as received (percent-encoded, so it is printable ASCII), without the query;
    /// nil when the request was refused before its request line was complete.
    public let path: String?
    public let status: HTTPStatus
    /// From the request's first byte to its response being handed to the socket.
    public let duration: Duration

    /// An entry; the server builds these.
    public init(time: Date, requestID: String, method: HTTPMethod?, path: String?, status: HTTPStatus, duration: Duration) {
        self.time = time
        self.requestID = requestID
        self.method = method
        self.path = path
        self.status = status
        self.duration = duration
    }

    /// `2026-12-01T09:30:00Z 3f9a… GET /v1/checkouts/123 200 1.234ms`
    public var description: String {
        let milliseconds = duration.milliseconds
        let timeText = time.formatted(.iso8601)
        return "\(timeText) \(requestID) \(method?.rawValue ?? "-") \(path ?? "-") \(status.code) \(String(format: "%.3f", milliseconds))ms"
    }
}
