// The concurrency model, and why.
//
// One event-loop thread owns every socket. It waits in Linux `epoll` (level-triggered) for
// the listener, the connections and an eventfd; accepts, reads, parses and writes with
// non-blocking system calls; and keeps each connection's deadline in one min-heap that sets
// epoll's timeout. Complete requests are handed to the async handler as Swift `Task`s on the
// global concurrent executor; a task posts its response to the loop's inbox and writes the
// eventfd, and the loop writes the response.
//
// - Bounded memory. An idle connection is a descriptor plus a few hundred bytes of state:
//   no thread, no stack, no read buffer (one 64 KiB buffer serves every read). A thread per
//   connection would cost a stack each and would make 1,000 slow clients 1,000 blocked threads.
// - No slow client holds anything but its own slot. Sockets never block, so one client that
//   drips bytes, or never reads its response, delays nobody; its absolute deadlines close it.
// - Handlers are ordinary async code. They run on the cooperative pool, never on the loop
//   thread, so a slow handler delays only its own connection, and the loop stays responsive.
// - One thread means no locks around connection state: the state machine is a value owned
//   by the loop, and the only cross-thread path is the inbox (a `Mutex` and an eventfd).
//
// A connection handles one request at a time. While a request is handled and answered the
// loop does not read that socket, so pipelined requests wait in order (in the parser's
// buffer, then in the kernel's) and TCP flow control pushes back on a client that keeps
// sending. Linux is the target: epoll, eventfd and accept4 come from a small C header.

import Foundation

/// An HTTP/1.1 server on POSIX sockets: one event-loop thread, strict parsing with limits
/// enforced as bytes arrive, absolute deadlines, and an async handler per request.
///
/// ```swift
/// let server = try HTTPServer.start(configuration: .init(host: "127.0.0.1", port: 8080), handler: router.handler)
/// await TerminationSignals().wait()
/// await server.shutdown(grace: .seconds(10))
/// ```
///
/// A started server runs until `shutdown(grace:)`; dropping the last reference does not stop it.
public final class HTTPServer: Sendable {
    /// Answers one request. Runs as a Swift task; it may suspend for as long as it needs
    /// (shutdown's grace period bounds it, and the task is cancelled if its client goes away).
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// How the server answers: one handler for every request, or an admission check that
    /// decides from each head before a body is read (a `Router`'s credentials).
    enum Responder: Sendable {
        case handler(Handler)
        case admission(HTTPAdmissionCheck)
    }

    /// The configuration the server was started with.
    public let configuration: Configuration
    /// The address actually bound, with the real port when port 0 was asked for.
    public let localAddress: HTTPRemoteAddress
    private let inbox: LoopInbox
    private let stopped: StopSignal
    private let statistics: LoopStatistics

    /// The bound port; with port 0 in the configuration, the free port the system chose.
    public var port: Int { localAddress.port }

    /// Connections open right now (approximate while the loop is busy).
    public var openConnectionCount: Int { statistics.openConnections.load(ordering: .relaxed) }

    /// Whether shutdown has completed.
    public var hasStopped: Bool { stopped.hasStopped }

    private init(configuration: Configuration, localAddress: HTTPRemoteAddress, inbox: LoopInbox, stopped: StopSignal, statistics: LoopStatistics) {
        self.configuration = configuration
        self.localAddress = localAddress
        self.inbox = inbox
        self.stopped = stopped
        self.statistics = statistics
    }

    /// Binds the listening socket (so a busy port fails here, as an error) and starts the
    /// event-loop thread. The server accepts connections when this returns. Every request goes
    /// to `handler`; bodies are read before it runs (within the limits and the body budget).
    public static func start(configuration: Configuration = Configuration(), handler: @escaping Handler) throws(HTTPServerError) -> HTTPServer {
        try start(configuration: configuration, responder: .handler(handler))
    }

    /// Like `start(configuration:handler:)`, but each request's head is first put to
    /// `admission` (`Router.admission`), before any of its body is read: a refused request is
    /// answered without its body ever being buffered.
    public static func start(configuration: Configuration = Configuration(), admission: @escaping HTTPAdmissionCheck) throws(HTTPServerError) -> HTTPServer {
        try start(configuration: configuration, responder: .admission(admission))
    }

    private static func start(configuration: Configuration, responder: Responder) throws(HTTPServerError) -> HTTPServer {
        try validate(configuration)
        let listener = try ListeningSocket.listen(host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog)
        let inbox = try LoopInbox()
        let stopped = StopSignal()
        let statistics = LoopStatistics()
        let loop: EventLoop
        do {
            loop = try EventLoop(
                configuration: configuration, responder: responder, listener: listener, inbox: inbox,
                statistics: statistics, stopped: stopped)
        } catch {
            inbox.close()
            throw error
        }
        let thread = Thread {
            OwnThread.nameCurrent("http-event-loop")
            loop.run()
        }
        thread.name = "PayPanelHTTP"
        thread.start()
        return HTTPServer(configuration: configuration, localAddress: listener.localAddress, inbox: inbox, stopped: stopped, statistics: statistics)
    }

    /// Stops accepting (the listener is closed, so new connections are refused), closes idle
    /// connections, lets requests in flight finish and be answered with `Connection: close`
    /// for up to `grace`, then closes whatever is left (cancelling its handler) and returns.
    /// Calling it again, or after the server stopped, just waits for the stop.
    public func shutdown(grace: Duration) async {
        inbox.post(.shutdown(grace: grace))
        await stopped.wait()
    }

    /// Returns when the server has stopped.
    public func waitUntilStopped() async {
        await stopped.wait()
    }

    private static func validate(_ configuration: Configuration) throws(HTTPServerError) {
        let limits = configuration.limits
        guard configuration.maxConnections >= 1, configuration.listenBacklog >= 1 else {
            throw HTTPServerError("maxConnections and listenBacklog must be at least 1")
        }
        guard configuration.maxBufferedBodyBytes >= limits.maxBodyBytes else {
            throw HTTPServerError("maxBufferedBodyBytes must be at least limits.maxBodyBytes, or no largest body could ever be read")
        }
        guard limits.maxHeadBytes >= 16, limits.maxHeaderCount >= 1, limits.maxBodyBytes >= 0, limits.maxChunkLineBytes >= 3 else {
            throw HTTPServerError("the parser limits are too small to read any request")
        }
        let timeouts = [configuration.headTimeout, configuration.bodyTimeout, configuration.idleTimeout,
                        configuration.writeTimeout, configuration.lingerTimeout]
        guard timeouts.allSatisfy({ $0 > .zero }) else {
            throw HTTPServerError("every timeout must be longer than zero")
        }
    }
}
