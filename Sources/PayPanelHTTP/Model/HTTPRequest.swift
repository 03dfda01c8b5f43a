/// One complete request as handed to a handler: the validated head, the whole body (already
/// bounded by the configured limit), where it came from and the id the server gave it.
public struct HTTPRequest: Sendable, Equatable {
    /// The id the server assigned; it appears in the access log and, with the request-id
    /// middleware, in the response's `X-Request-ID`.
    public let id: String
    public let head: HTTPRequestHead
    /// The body bytes, decoded from chunks when the request was chunked.
    public let body: [UInt8]
    /// The peer of the connection, nil only for requests built by hand.
    public let remoteAddress: HTTPRemoteAddress?

    /// A request; the server builds these, tests and adapters may too.
    public init(id: String, head: HTTPRequestHead, body: [UInt8] = [], remoteAddress: HTTPRemoteAddress? = nil) {
        self.id = id
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// A request built by hand, e.g. to call a router in a test without a socket.
    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        id: String = "test", remoteAddress: HTTPRemoteAddress? = nil
    ) throws(HTTPParseError) {
        let head = HTTPRequestHead(
            method: method, target: try RequestTarget(parsing: target), version: .http1_1, headers: headers,
            framing: body.isEmpty ? .none : .contentLength(body.count), keepAlive: true, expectsContinue: false)
        self.init(id: id, head: head, body: body, remoteAddress: remoteAddress)
    }

    public var method: HTTPMethod { head.method }
    public var target: RequestTarget { head.target }
    public var headers: HTTPHeaders { head.headers }
    public var version: HTTPVersion { head.version }
}
