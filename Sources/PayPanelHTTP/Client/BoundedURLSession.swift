import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// URLSession with the limits every byte from the network needs: a body limit enforced while
/// reading (the task is cancelled as soon as it is passed, or when `Content-Length` already
/// says so), a deadline of our own (URLSession's timeouts are whole seconds on Linux and reset
/// with each byte received), and redirects only to https, at most `maximumRedirects`.
///
/// One session for the life of the object: over TLS URLSession negotiates HTTP/2 by ALPN and
/// keeps one connection for many requests (what APNs asks of providers), and reconnects by
/// itself after a GOAWAY. On Linux it trusts the system CA bundle only.
///
/// `HTTPClient`'s https transport and the only URLSession in PayPanel (a lint test keeps it so):
/// plain http goes over `SocketConnection`, whose one deadline covers the name lookup too.
package final class BoundedURLSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `session` is set once in init and never changed; everything that
    // changes is in `exchanges`, behind its mutex.
    private var session: URLSession!
    private let exchanges = Mutex<[Int: Exchange]>([:])
    package let maximumRedirects: Int
    /// True: a redirect is not followed and the 3xx itself is the response (a webhook relay
    /// records it as the answer; following would let an endpoint bounce the relay to an address
    /// its destination check never saw). False: up to `maximumRedirects`, to https only.
    package let redirectIsTheAnswer: Bool

    /// What came back: the status, the headers (read with `value(forHTTPHeaderField:)`, which
    /// ignores the case URLSession re-cases them to) and the body.
    package struct Response: @unchecked Sendable {
        // HTTPURLResponse is immutable once made.
        package let http: HTTPURLResponse
        package let body: [UInt8]
        package var status: Int { http.statusCode }
        package func header(_ name: String) -> String? { http.value(forHTTPHeaderField: name) }
    }

    /// Why no response came.
    package enum Failure: Error, Equatable {
        case timedOut
        case tooLarge(limit: Int)
        /// The TLS handshake failed: an untrusted or expired certificate, a wrong host name.
        case tls(String)
        case redirectRefused(String)
        /// With URLSession's error code (`URLError.Code`), when it gave one.
        case unreachable(String, code: Int? = nil)
    }

    private struct Exchange {
        var limit: Int
        /// Only the status and headers are wanted: the exchange ends at the head.
        var statusOnly = false
        var body: [UInt8] = []
        var response: HTTPURLResponse?
        var redirects = 0
        let completion: @Sendable (Result<Response, Failure>) -> Void
    }

    package init(maximumRedirects: Int = 0, redirectIsTheAnswer: Bool = false) {
        self.maximumRedirects = maximumRedirects
        self.redirectIsTheAnswer = redirectIsTheAnswer
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Our own deadline decides; these only bound a stuck transfer if that failed.
        configuration.timeoutIntervalForRequest = 300
        configuration.timeoutIntervalForResource = 600
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends `request`; `completion` is called exactly once: with the response, with the first
    /// limit broken, or at the deadline, whichever comes first. It never waits on URLSession to
    /// report a task it was told to cancel (on Linux a cancelled task is not always reported).
    package func start(_ request: URLRequest, maximumBytes: Int, statusOnly: Bool = false, deadline: ContinuousClock.Instant,
               completion: @escaping @Sendable (Result<Response, Failure>) -> Void) {
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        exchanges.withLock { $0[id] = Exchange(limit: maximumBytes, statusOnly: statusOnly, completion: completion) }
        task.resume()
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, remaining.wholeNanoseconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [weak self, weak task] in
            guard let self else { return }
            if self.finish(id, .failure(.timedOut)) { task?.cancel() }
        }
    }

    /// Blocks until the response (for synchronous callers such as the service extension).
    package func send(_ request: URLRequest, maximumBytes: Int, timeout: Duration) -> Result<Response, Failure> {
        BlockingWait.announce("HTTP exchange (synchronous)")
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Response, Failure>?>(nil)
        start(request, maximumBytes: maximumBytes, deadline: ContinuousClock.now.advanced(by: timeout)) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Awaits the response.
    package func send(_ request: URLRequest, maximumBytes: Int, timeout: Duration) async -> Result<Response, Failure> {
        await withCheckedContinuation { continuation in
            start(request, maximumBytes: maximumBytes, deadline: ContinuousClock.now.advanced(by: timeout)) { continuation.resume(returning: $0) }
        }
    }

    /// Ends exchange `id` with `result` unless it already ended; true when this call ended it
    /// (then the caller cancels the task). Removing the exchange under the lock is what makes
    /// the completion run once.
    @discardableResult
    private func finish(_ id: Int, _ result: Result<Response, Failure>) -> Bool {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: id) }) else { return false }
        exchange.completion(result)
        return true
    }

    // MARK: - URLSessionDataDelegate

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        let (limit, statusOnly) = exchanges.withLock { exchanges -> (Int?, Bool) in
            exchanges[id]?.response = response as? HTTPURLResponse
            return (exchanges[id]?.limit, exchanges[id]?.statusOnly ?? false)
        }
        if statusOnly, let http = response as? HTTPURLResponse {
            // The head is the whole answer: no byte of the body is read, however long it is.
            finish(id, .success(Response(http: http, body: [])))
            completionHandler(.cancel)
            dataTask.cancel()
            return
        }
        if let limit, response.expectedContentLength > Int64(limit) {
            finish(id, .failure(.tooLarge(limit: limit)))
            completionHandler(.cancel)
            dataTask.cancel()
            return
        }
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let overLimit = exchanges.withLock { exchanges -> Int? in
            guard exchanges[id] != nil else { return nil }
            guard exchanges[id]!.body.count + data.count <= exchanges[id]!.limit else { return exchanges[id]!.limit }
            exchanges[id]!.body.append(contentsOf: data)
            return nil
        }
        if let overLimit, finish(id, .failure(.tooLarge(limit: overLimit))) { dataTask.cancel() }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        if redirectIsTheAnswer {
            // Not followed: URLSession then reports the 3xx as the response.
            completionHandler(nil)
            return
        }
        let id = task.taskIdentifier
        let target = request.url?.absoluteString ?? "?"
        let refusal: Failure? = exchanges.withLock { exchanges in
            guard exchanges[id] != nil else { return nil }
            exchanges[id]!.redirects += 1
            if request.url?.scheme?.lowercased() != "https" {
                return .redirectRefused("redirected to \(target), which is not https; only https redirects are followed")
            }
            if exchanges[id]!.redirects > maximumRedirects {
                return .redirectRefused("redirected more than \(maximumRedirects) times")
            }
            return nil
        }
        if let refusal {
            finish(id, .failure(refusal))
            completionHandler(nil)
            task.cancel()
        } else {
            completionHandler(request)
        }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        guard let exchange = exchanges.withLock({ $0[id] }) else { return }
        if let error {
            finish(id, .failure(Self.failure(for: error)))
        } else if let response = exchange.response ?? (task.response as? HTTPURLResponse) {
            finish(id, .success(Response(http: response, body: exchange.body)))
        } else {
            finish(id, .failure(.unreachable("the server closed the connection without an HTTP response")))
        }
    }

    /// URLSession's errors in our terms; the TLS ones named as such.
    package static func failure(for error: any Error) -> Failure {
        let nsError = error as NSError
        let description = nsError.localizedDescription
        // NSURLErrorSecureConnectionFailed (-1200) … NSURLErrorClientCertificateRequired (-1206).
        if nsError.domain == NSURLErrorDomain, (-1206)...(-1200) ~= nsError.code { return .tls(description) }
        if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorTimedOut { return .timedOut }
        // On Linux some TLS failures arrive as other codes with curl's message, which always
        // names SSL or the certificate ("SSL certificate problem: unable to get local issuer
        // certificate", "SSL: no alternative certificate subject name matches").
        let lower = description.lowercased()
        if lower.contains("ssl") || lower.contains("certificate") || lower.contains("tls") { return .tls(description) }
        return .unreachable(description, code: nsError.domain == NSURLErrorDomain ? nsError.code : nil)
    }
}
