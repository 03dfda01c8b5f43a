import Foundation
import PayPanelHTTP

/// The APNs transport: PayPanel's `HTTPClient` with one URLSession kept for every request
/// (HTTP/2 over TLS, negotiated by ALPN, one connection, as APNs asks of providers). Answers
/// are bounded (APNs' error bodies are a few dozen bytes) and every request has a deadline.
package final class URLSessionAPNsTransport: APNsTransport {
    private let client = HTTPClient(maximumRedirects: 0, secure: .sessionForEveryRequest(BoundedURLSession(maximumRedirects: 0)))
    package let timeout: Duration
    /// APNs' bodies are tiny JSON; anything bigger is not APNs.
    static let maximumAnswerBytes = 16 * 1024

    package init(timeout: Duration = .seconds(15)) {
        self.timeout = timeout
    }

    package func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws(APNsTransportError) -> APNsHTTPAnswer {
        guard let address = HTTPClientURL(string: url) else {
            throw APNsTransportError("\(url) is not an http(s) URL")
        }
        let host = address.host
        // Sent twice at most when the kept connection is lost under it: APNs sees the same
        // apns-id (and collapse id, when there is one), as from the outbox's later resend.
        let request = HTTPClientRequest("POST", address, headers: headers, body: body, mayBeSentTwice: true)
        // The host only in messages: the path holds the device token.
        switch await client.send(request, maximumBodyBytes: Self.maximumAnswerBytes, deadline: .now.advanced(by: timeout), peer: host) {
        case .success(let response):
            return APNsHTTPAnswer(status: response.status, apnsID: response.header("apns-id"), body: response.body)
        case .failure(let error):
            throw APNsTransportError("no answer from APNs at \(host): \(Self.describe(error))")
        }
    }

    static func describe(_ error: HTTPClientError) -> String {
        switch error.kind {
        case .timedOut: "timed out"
        case .tls: "\(error.message); check the host and that the system trusts its certificate"
        default: error.message
        }
    }
}
