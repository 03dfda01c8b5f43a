import Foundation
import PayPanelHTTP

/// How the relay sends one delivery: an HTTP POST. Injected so tests answer in memory and the
/// program uses `URLSession` (`URLSessionWebhookTransport`, in PayPanelServer).
package protocol WebhookTransport: Sendable {
    /// Posts `body` to `url` with `headers`, giving up after `timeout`. Never throws: a failure
    /// to get any answer is `.failed` with a short reason.
    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult
}

/// What came back.
package enum WebhookTransportResult: Sendable, Equatable {
    /// An HTTP answer, with its `Retry-After` in seconds when it had one.
    case response(status: Int, retryAfter: TimeInterval?)
    /// No answer: timeout, refused connection, TLS failure, … (no secret, no body in it).
    case failed(String)
}

extension WebhookTransportResult {
    /// Reads a `Retry-After` header: delay-seconds, or an HTTP date relative to `now`.
    package static func retryAfterSeconds(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.count <= 10, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int(value) { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

extension WebhookTransportResult {
    /// What one delivery over `HTTPClient` came to. The reasons are short and name no URL (the
    /// attempt row names the endpoint) and hold nothing the receiver sent.
    package init(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        switch result {
        case .success(let response):
            self = .response(status: response.status, retryAfter: Self.retryAfterSeconds(response.header("Retry-After"), now: Date()))
        case .failure(let error):
            self = .failed(Self.reason(error))
        }
    }

    private static func reason(_ error: HTTPClientError) -> String {
        switch error.kind {
        case .timedOut: return error.requestSent ? "timed out" : "timed out connecting"
        case .tls: return "TLS failed"
        case .unsupported: return "https is not supported by this sender (no TLS): use an http:// endpoint"
        default: break
        }
        // URLSession's code, when the failure came from it (https).
        switch error.urlErrorCode {
        case .some(-1004): return "connection refused"  // cannotConnectToHost
        case .some(-1003), .some(-1006): return "host not found"  // cannotFindHost, dnsLookupFailed
        case .some(-1005): return "connection lost"  // networkConnectionLost
        case let code?: return "network error \(code)"
        case nil: return error.requestSent ? "connection lost" : "connection refused"
        }
    }
}
