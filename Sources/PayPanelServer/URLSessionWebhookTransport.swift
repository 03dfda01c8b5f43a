import Foundation
import PayPanel
import PayPanelHTTP

/// The relay's transport: PayPanel's `HTTPClient`, `http://` on its socket path and `https://`
/// on one URLSession kept for the transport's life (TLS with the system's trust store, HTTP/1.1
/// and HTTP/2; ephemeral: no cookies, no cache, no credentials kept). Redirects are not
/// followed: the spec counts a 3xx as a failure, so the 3xx itself is the answer recorded, and
/// following one would let an endpoint bounce the relay to an address the destination check
/// never saw. Only the status and headers are read: a receiver's body is never looked at.
public final class URLSessionWebhookTransport: WebhookTransport, Sendable {
    private let client: HTTPClient

    public init() {
        client = HTTPClient(maximumRedirects: 0, secure: .session(BoundedURLSession(maximumRedirects: 0, redirectIsTheAnswer: true)))
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        guard let target = HTTPClientURL(string: url) else { return .failed("not a URL") }
        // Sent twice at most when a kept https connection is lost under it: the receiver
        // knows the second copy by its webhook-id, as it knows the relay's later resends.
        let request = HTTPClientRequest("POST", target, headers: headers.map { (name: $0.0, value: $0.1) }, body: body, mayBeSentTwice: true)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        return WebhookTransportResult(await client.send(request, maximumBodyBytes: 0, bodies: .none, deadline: deadline, peer: "the webhook endpoint"))
    }
}
