import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// PayPanel's one HTTP client, for every request the library and its programs send: the
/// processor over HTTP, webhook deliveries, media downloads, `checkout --server` and APNs.
///
/// `http://` goes over `SocketConnection`, one connection per request (`Connection: close`),
/// with one deadline for everything: name lookup, connect, send and every read. URLSession
/// cannot give that on Linux (its timeouts are whole seconds and restart with each byte, and
/// it needs libcurl at run time), and only here can a caller tell "never sent" (lookup or
/// connect failed: `requestSent == false`) from "sent, no answer", which is what decides
/// whether a payment call may be retried. `https://` (and HTTP/2) goes to `BoundedURLSession`,
/// since no TLS library is linked; a client built without one refuses https as `.unsupported`.
///
/// Both paths bound what they read: the body limit is enforced while reading (and from
/// `Content-Length` before reading), the response head is at most 32 KB, and the deadline is
/// ours. The socket path follows no redirect (a 3xx is returned for the caller's own rules to
/// judge); the URLSession path follows https redirects only, up to `maximumRedirects`, unless
/// the transport was made with `redirectIsTheAnswer`.
package struct HTTPClient: Sendable {
    /// Which answers' bodies are read.
    package enum Bodies: Sendable, Equatable {
        /// Every status's (an API's errors are JSON envelopes).
        case every
        /// Only a 200's; any other status completes at its head.
        case onlyOK
        /// None: the status and headers are the answer.
        case none
    }

    /// How `https://` is sent.
    package enum SecureTransport: Sendable {
        /// Not at all: refused as `.unsupported`, with the advice to use http.
        case none
        /// A fresh session per request, dropped after it (one-shot callers such as a media
        /// fetch per push: nothing is kept between pushes).
        case sessionPerRequest
        /// One session for every https request: one HTTP/2 connection kept open.
        case session(BoundedURLSession)
        /// One session for every request, http ones too: APNs speaks HTTP/2 only, which the
        /// socket path does not, so even a test server on http:// is reached through URLSession.
        case sessionForEveryRequest(BoundedURLSession)
    }

    /// True when `url` goes to URLSession rather than over the socket.
    private func usesSession(_ url: HTTPClientURL) -> Bool {
        if case .sessionForEveryRequest = secure { return true }
        return url.isSecure
    }

    package let userAgent: String
    /// Redirects followed: by a per-request session, and by callers that follow socket
    /// redirects themselves (media fetches).
    package var maximumRedirects: Int
    package let secure: SecureTransport

    package init(userAgent: String, maximumRedirects: Int = 0, secure: SecureTransport = .none) {
        self.userAgent = userAgent
        self.maximumRedirects = maximumRedirects
        self.secure = secure
    }

    /// Bytes asked of the socket at a time.
    static let receiveSize = 64 * 1024

    /// Sends `request` and reads the answer, blocking the calling thread until it is complete,
    /// a limit is broken or `deadline` passes. `peer` names the server in messages (the host
    /// by default; never a URL's path, which may hold a token).
    package func send(
        _ request: HTTPClientRequest, maximumBodyBytes: Int, bodies: Bodies = .every, deadline: ContinuousClock.Instant, peer: String? = nil
    ) -> Result<HTTPClientResponse, HTTPClientError> {
        BlockingWait.announce("HTTP exchange (synchronous)")
        let peer = peer ?? request.url.hostHeader
        guard usesSession(request.url) else {
            return Self.exchangeOverSocket(request, userAgent: userAgent, maximumBodyBytes: maximumBodyBytes, bodies: bodies, deadline: deadline, peer: peer)
        }
        let session: BoundedURLSession
        switch prepareSecure(request, peer: peer) {
        case .failure(let error): return .failure(error)
        case .success(let prepared): session = prepared
        }
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        startSecure(request, on: session, maximumBodyBytes: maximumBodyBytes, bodies: bodies, deadline: deadline, peer: peer) {
            outcome.set($0)
            done.signal()
        }
        done.wait()
        return outcome.get()
    }

    /// `send`, awaited: the blocking socket work runs on a thread of its own, so no Swift
    /// concurrency thread waits on the network.
    package func send(
        _ request: HTTPClientRequest, maximumBodyBytes: Int, bodies: Bodies = .every, deadline: ContinuousClock.Instant, peer: String? = nil
    ) async -> Result<HTTPClientResponse, HTTPClientError> {
        let peer = peer ?? request.url.hostHeader
        guard usesSession(request.url) else {
            let userAgent = userAgent
            return await withCheckedContinuation { continuation in
                Thread {
                    continuation.resume(
                        returning: Self.exchangeOverSocket(
                            request, userAgent: userAgent, maximumBodyBytes: maximumBodyBytes, bodies: bodies, deadline: deadline, peer: peer))
                }.start()
            }
        }
        let session: BoundedURLSession
        switch prepareSecure(request, peer: peer) {
        case .failure(let error): return .failure(error)
        case .success(let prepared): session = prepared
        }
        return await withCheckedContinuation { continuation in
            startSecure(request, on: session, maximumBodyBytes: maximumBodyBytes, bodies: bodies, deadline: deadline, peer: peer) {
                continuation.resume(returning: $0)
            }
        }
    }

    // MARK: - http: the socket

    /// One request and its answer on a fresh connection.
    private static func exchangeOverSocket(
        _ request: HTTPClientRequest, userAgent: String, maximumBodyBytes: Int, bodies: Bodies, deadline: ContinuousClock.Instant, peer: String
    ) -> Result<HTTPClientResponse, HTTPClientError> {
        let connection: SocketConnection
        do {
            connection = try SocketConnection.connect(host: request.url.host, port: request.url.port, deadline: deadline)
        } catch {
            var notSent = error
            notSent.requestSent = false
            return .failure(notSent)
        }
        var reader = HTTPResponseReader(maximumBodyBytes: maximumBodyBytes, bodies: bodies)
        do {
            try connection.send(request.encoded(userAgent: userAgent), what: "sending the request to \(peer)")
            while !reader.isComplete {
                let bytes = try connection.receive(maximum: receiveSize, what: "reading the answer from \(peer)")
                if bytes.isEmpty {
                    try reader.endOfStream()
                    break
                }
                try reader.consume(bytes)
            }
        } catch {
            return .failure(error)
        }
        guard let status = reader.status else { return .failure(HTTPClientError(.protocolError, "\(peer) sent no status line")) }
        return .success(HTTPClientResponse(status: status, headers: reader.headers, body: reader.body))
    }

    // MARK: - https: URLSession

    private func prepareSecure(_ request: HTTPClientRequest, peer: String) -> Result<BoundedURLSession, HTTPClientError> {
        switch secure {
        case .none:
            return .failure(HTTPClientError(
                .unsupported, "\(request.url) uses https, which PayPanel's built-in HTTP client does not support here (no TLS library is linked)",
                requestSent: false))
        case .sessionPerRequest:
            return .success(BoundedURLSession(maximumRedirects: maximumRedirects))
        case .session(let session), .sessionForEveryRequest(let session):
            return .success(session)
        }
    }

    /// True when the session keeps its connection between requests, so a request can meet a
    /// connection the peer is closing (a per-request session's connection is always new).
    private var keepsConnections: Bool {
        switch secure {
        case .session, .sessionForEveryRequest: true
        case .none, .sessionPerRequest: false
        }
    }

    /// Whether a failed request is sent once more at once (see `HTTPClientRequest.mayBeSentTwice`):
    /// only when no answer came over a kept connection and the deadline has time left. A
    /// timeout or a TLS failure would only repeat itself.
    private func sendsAgain(_ request: HTTPClientRequest, after error: HTTPClientError, deadline: ContinuousClock.Instant) -> Bool {
        request.mayBeSentTwice && keepsConnections && error.kind == .unreachable && ContinuousClock.now < deadline
    }

    private func startSecure(
        _ request: HTTPClientRequest, on session: BoundedURLSession, maximumBodyBytes: Int, bodies: Bodies, deadline: ContinuousClock.Instant,
        peer: String, isSecondTry: Bool = false, completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        guard let url = URL(string: request.url.description) else {
            completion(.failure(HTTPClientError(.unsupported, "\(peer): the address cannot be given to URLSession", requestSent: false)))
            return
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        for header in request.sendableHeaders { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        // `session` is captured so a per-request session lives until its answer.
        session.start(urlRequest, maximumBytes: maximumBodyBytes, statusOnly: bodies == .none, deadline: deadline) { result in
            switch result {
            case .success(let response):
                let headers = response.http.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
                    guard let name = key as? String, let value = value as? String else { return nil }
                    return (name, value)
                }
                completion(.success(HTTPClientResponse(status: response.status, headers: headers, body: response.body)))
            case .failure(let failure):
                let error = Self.error(failure, peer: peer)
                if !isSecondTry, sendsAgain(request, after: error, deadline: deadline) {
                    startSecure(
                        request, on: session, maximumBodyBytes: maximumBodyBytes, bodies: bodies, deadline: deadline, peer: peer, isSecondTry: true,
                        completion: completion)
                } else {
                    completion(.failure(error))
                }
            }
            _ = session
        }
    }

    /// URLSession's failures in the client's terms; the messages are the session's own.
    static func error(_ failure: BoundedURLSession.Failure, peer: String) -> HTTPClientError {
        switch failure {
        case .timedOut: HTTPClientError(.timedOut, "waiting for \(peer) timed out")
        case .tooLarge(let limit): HTTPClientError(.tooLarge, "the answer was larger than \(limit) bytes")
        case .tls(let reason): HTTPClientError(.tls, "the TLS connection failed (\(reason))")
        case .redirectRefused(let reason): HTTPClientError(.redirectRefused, reason)
        case .unreachable(let reason, let code): HTTPClientError(.unreachable, reason, urlErrorCode: code)
        }
    }
}

extension HTTPClientResponse {
    /// The `Content-Type` header, when sent.
    package var contentType: String? { header("Content-Type") }
}

/// Hands the blocking `send`'s answer from URLSession's queue to the waiting thread.
private final class OutcomeBox: @unchecked Sendable {
    // Written once before the semaphore is signalled, read once after it is waited on.
    private let lock = NSLock()
    private var outcome: Result<HTTPClientResponse, HTTPClientError>?

    func set(_ value: Result<HTTPClientResponse, HTTPClientError>) { lock.withLock { outcome = value } }
    func get() -> Result<HTTPClientResponse, HTTPClientError> { lock.withLock { outcome! } }
}
