/// A complete response: status, headers and body. The server adds `Content-Length` and, when
/// it closes the connection, `Connection: close`; any framing headers a handler sets are
/// replaced, so a handler cannot desynchronise the connection.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When set, nothing is sent: the connection is closed as if the network dropped it after
    /// the request arrived. For fault-injecting servers (the mock processor's `DROP_AFTER`).
    public var dropsConnection = false

    /// A response with the given parts; empty by default.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// No response at all: the server closes the connection instead of answering.
    public static func droppedConnection() -> HTTPResponse {
        var response = HTTPResponse(status: .internalServerError)
        response.dropsConnection = true
        return response
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// An `application/json` response from already-encoded bytes.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// The default answer to a request the server refused itself (a limit, a malformed
    /// request, a timeout): the status and the reason as plain text.
    public static func rejection(_ status: HTTPStatus, reason: String) -> HTTPResponse {
        .text(reason + "\n", status: status)
    }
}
