import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PayPanel

/// The relay's transport: `URLSession` from the toolchain's Foundation (HTTPS with the
/// system's trust store, HTTP/1.1 and HTTP/2), an ephemeral session (no cookies, no cache, no
/// credentials kept), redirects refused (the spec counts a 3xx as a failure, and following one
/// would let an endpoint bounce the relay to an address the destination check never saw).
public final class URLSessionWebhookTransport: NSObject, WebhookTransport, URLSessionTaskDelegate, @unchecked Sendable {
    // Immutable after init; URLSession is thread-safe.
    private let session: URLSession!

    public override init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 30
        let box = DelegateBox()
        session = URLSession(configuration: configuration, delegate: box, delegateQueue: nil)
        super.init()
    }

    deinit {
        session.invalidateAndCancel()
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        guard let target = URL(string: url) else { return .failed("not a URL") }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.timeoutInterval = TimeInterval(timeout.components.seconds)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = Data(body)
        return await withCheckedContinuation { continuation in
            let task = session.dataTask(with: request) { _, response, error in
                if let http = response as? HTTPURLResponse {
                    let retryAfter = WebhookTransportResult.retryAfterSeconds(http.value(forHTTPHeaderField: "Retry-After"), now: Date())
                    continuation.resume(returning: .response(status: http.statusCode, retryAfter: retryAfter))
                } else {
                    continuation.resume(returning: .failed(Self.reason(error)))
                }
            }
            task.resume()
        }
    }

    /// A short reason without the URL (which the attempt row already names by endpoint).
    private static func reason(_ error: (any Error)?) -> String {
        guard let error = error as? URLError else { return "no response" }
        switch error.code {
        case .timedOut: return "timed out"
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "connection lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return "TLS failed"
        default: return "network error \(error.code.rawValue)"
        }
    }
}

/// Refuses every redirect: the 3xx itself is the answer the relay records.
private final class DelegateBox: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
