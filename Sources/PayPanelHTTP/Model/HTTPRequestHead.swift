/// How the body of a request is delimited, decided once from the head (RFC 9112 §6.3).
public enum BodyFraming: Sendable, Equatable {
    /// No body: neither `Content-Length` (or `Content-Length: 0`) nor `Transfer-Encoding`.
    case none
    /// Exactly this many bytes follow the head; already checked against the body limit.
    case contentLength(Int)
    /// `Transfer-Encoding: chunked`; the decoder bounds the total as it goes.
    case chunked
}

/// The request line and header fields of one request, validated, with the decisions the
/// server needs made once: body framing, whether the client wants the connection kept open,
/// and whether it waits for `100 Continue`.
public struct HTTPRequestHead: Sendable, Equatable {
    public let method: HTTPMethod
    public let target: RequestTarget
    public let version: HTTPVersion
    public let headers: HTTPHeaders
    public let framing: BodyFraming
    /// What the client asked for: HTTP/1.1 keeps the connection unless `Connection: close`;
    /// HTTP/1.0 closes unless `Connection: keep-alive`.
    public let keepAlive: Bool
    /// `Expect: 100-continue` on a request with a body.
    public let expectsContinue: Bool

    /// A head; the parser builds these, tests may too.
    public init(
        method: HTTPMethod, target: RequestTarget, version: HTTPVersion, headers: HTTPHeaders,
        framing: BodyFraming, keepAlive: Bool, expectsContinue: Bool
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }
}
