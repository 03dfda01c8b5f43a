import Foundation

/// Something the operator should be able to see: a refused request (each limit, malformed
/// input, a timeout), a connection turned away, a response the handler got wrong, an accept
/// failure. Delivered to `Configuration.eventLog` on the event-loop thread, so the callback
/// must be quick and must not block. Like access-log entries, events never carry request text.
public struct HTTPServerEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The server answered a request itself with this status: malformed (400, 501, 505,
        /// 417), too large (413, 431) or too slow (408).
        case requestRefused(HTTPStatus)
        /// A connection beyond `maxConnections` was answered 503 and closed.
        case connectionRefused
        /// The client did not read its response within `writeTimeout`; the connection was closed.
        case writeTimedOut
        /// The handler's response had a status or header that cannot be written safely; a 500
        /// was sent instead.
        case invalidResponse
        /// `accept` failed, e.g. because the process ran out of file descriptors.
        case acceptFailed
    }

    public let time: Date
    public let kind: Kind
    /// Why, in words; never request text.
    public let reason: String
    public let requestID: String?
    public let remoteAddress: HTTPRemoteAddress?

    /// An event; the server builds these.
    public init(time: Date, kind: Kind, reason: String, requestID: String?, remoteAddress: HTTPRemoteAddress?) {
        self.time = time
        self.kind = kind
        self.reason = reason
        self.requestID = requestID
        self.remoteAddress = remoteAddress
    }

    public var description: String {
        "\(kind) from \(remoteAddress.map(String.init(describing:)) ?? "-") (request \(requestID ?? "-")): \(reason)"
    }
}
