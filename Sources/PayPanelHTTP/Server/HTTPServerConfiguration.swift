extension HTTPServer {
    /// Everything a server enforces, as one value, so a test can shrink a 10 s timeout to
    /// 200 ms or a 1 MiB body limit to 10 bytes and exercise the same code paths.
    public struct Configuration: Sendable {
        /// Numeric address or host name to listen on; `127.0.0.1` by default, `::1` or `::`
        /// for IPv6, `0.0.0.0` for every IPv4 interface.
        public var host: String
        /// Port to listen on; 0 picks a free one (read it back from `HTTPServer.port`).
        public var port: Int
        /// Pending connections the kernel queues before the loop accepts them (capped by
        /// `net.core.somaxconn`).
        public var listenBacklog: Int
        /// Open connections at most. One more is answered `503` with `Retry-After: 1` and
        /// closed at once, rather than left unaccepted in the kernel's queue: the client learns
        /// immediately that it should back off instead of timing out, and the loop keeps its
        /// bound on descriptors and memory.
        public var maxConnections: Int
        /// Threads of the server's own that run request handlers (see `HandlerExecutor`).
        public var handlerThreads = 8
        /// Head, header-count, body and chunk-line limits, enforced while parsing.
        public var limits: HTTPRequestParser.Limits
        /// Request bodies all connections together may hold at once. Each admitted request
        /// reserves its `Content-Length` (a chunked one the whole body limit) before its body
        /// is read and gives it back when it is answered; a request that would pass the budget
        /// is answered `503` with `Retry-After: 1`, its body unread. Without it the worst case
        /// is `maxConnections × maxBodyBytes` (4 GiB by default).
        public var maxBufferedBodyBytes: Int
        /// From a request's first byte to the end of its headers; then 408 and close. Absolute:
        /// a client dripping one byte at a time cannot extend it.
        public var headTimeout: Duration
        /// From the end of the headers to the end of the body; then 408 and close.
        public var bodyTimeout: Duration
        /// How long a keep-alive connection may wait for its next request (and a new one for
        /// its first); then it is closed without a response.
        public var idleTimeout: Duration
        /// How long a client may take to read a response; then the connection is closed.
        public var writeTimeout: Duration
        /// After the last response on a connection the server closes, its write side is shut
        /// and input is read and discarded for at most this long, so the client reads the
        /// response instead of a reset caused by its own unread bytes (a "lingering close").
        public var lingerTimeout: Duration
        /// Called once per request, on the event-loop thread: keep it quick and non-blocking
        /// (a `write(2)` to a pipe blocks when the pipe is full: queue the line on a
        /// `LogLineWriter`, as `serve` does).
        public var accessLog: (@Sendable (HTTPAccessLogEntry) -> Void)?
        /// Called for refusals, timeouts and failures, on the event-loop thread.
        public var eventLog: (@Sendable (HTTPServerEvent) -> Void)?
        /// Builds the response the server sends when it refuses a request itself (status and
        /// reason), so an API can wrap it in its own error envelope. Plain text by default.
        public var rejectionResponse: @Sendable (HTTPStatus, String) -> HTTPResponse
        /// Makes the id of each request; 16 random hex digits by default.
        public var makeRequestID: @Sendable () -> String

        /// The defaults: loopback, a free port, 4096 connections, 16 KiB heads, 1 MiB bodies and
        /// 64 MiB of them at once, 10 s for headers, 30 s for bodies, 30 s idle.
        public init(host: String = "127.0.0.1", port: Int = 0) {
            self.host = host
            self.port = port
            listenBacklog = 1024
            maxConnections = 4096
            limits = HTTPRequestParser.Limits()
            maxBufferedBodyBytes = 64 * 1024 * 1024
            headTimeout = .seconds(10)
            bodyTimeout = .seconds(30)
            idleTimeout = .seconds(30)
            writeTimeout = .seconds(30)
            lingerTimeout = .seconds(2)
            accessLog = nil
            eventLog = nil
            rejectionResponse = HTTPResponse.rejection
            makeRequestID = RequestID.random
        }
    }
}

/// Request ids: random, so ids from several servers behind one balancer do not collide and
/// do not reveal request counts.
public enum RequestID {
    /// 16 lower-case hex digits from the system's secure random source.
    @Sendable public static func random() -> String {
        let value = UInt64.random(in: .min ... .max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension Duration {
    /// `300 ms`, `10 s`, `1.5 s`: for refusal reasons that name the limit the client hit.
    var spokenForReason: String {
        let milliseconds = wholeMilliseconds
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
    }
}
