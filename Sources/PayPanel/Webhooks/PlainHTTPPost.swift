import Foundation
import PayPanelHTTP

/// One `POST` over plain HTTP/1.1 on PayPanel's one HTTP client (its socket path), with one
/// deadline for everything (lookup, connect, request, answer): how the mock processor's webhook
/// sender (`paypanel processor serve`) posts to `serve`, with no libcurl needed at run time.
///
/// No TLS: only libcrypto is linked, so `https://` is not for this client.
package enum PlainHTTPPost {
    /// The longest answer body read; a webhook receiver's answer is not looked at beyond its status.
    static let maximumBodyBytes = 64 * 1024
    static let client = HTTPClient(maximumRedirects: 0)

    /// Posts `body` to `url` (`http://host[:port]/path`), giving up after `timeout`.
    package static func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        guard let target = HTTPClientURL(string: url), !target.isSecure else { return .failed("not an http:// URL") }
        let request = HTTPClientRequest("POST", target, headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        return WebhookTransportResult(await client.send(request, maximumBodyBytes: maximumBodyBytes, deadline: deadline, peer: "the webhook endpoint"))
    }
}

/// A `WebhookTransport` that sends `http://` on `PlainHTTPPost` and hands `https://` to
/// `secure` (URLSession, in the program), or refuses it when there is none.
package struct PlainHTTPWebhookTransport: WebhookTransport {
    let secure: (any WebhookTransport)?

    package init(secure: (any WebhookTransport)? = nil) {
        self.secure = secure
    }

    package func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        if url.lowercased().hasPrefix("https://") {
            guard let secure else { return .failed("https is not supported by this sender (no TLS): use an http:// endpoint") }
            return await secure.post(url: url, headers: headers, body: body, timeout: timeout)
        }
        return await PlainHTTPPost.post(url: url, headers: headers, body: body, timeout: timeout)
    }
}
