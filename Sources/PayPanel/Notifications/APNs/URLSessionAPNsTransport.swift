import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The APNs transport: URLSession, HTTP/2 over TLS (negotiated by ALPN), one connection kept
/// for all requests. Answers are bounded (APNs' error bodies are a few dozen bytes) and every
/// request has a deadline.
package final class URLSessionAPNsTransport: APNsTransport {
    private let client = BoundedURLSession(maximumRedirects: 0)
    package let timeout: Duration
    /// APNs' bodies are tiny JSON; anything bigger is not APNs.
    static let maximumAnswerBytes = 16 * 1024

    package init(timeout: Duration = .seconds(15)) {
        self.timeout = timeout
    }

    package func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async throws(APNsTransportError) -> APNsHTTPAnswer {
        guard let target = URL(string: url), target.scheme == "https" || target.scheme == "http" else {
            throw APNsTransportError("\(url) is not an http(s) URL")
        }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        for header in headers { request.setValue(header.value, forHTTPHeaderField: header.name) }
        switch await client.send(request, maximumBytes: Self.maximumAnswerBytes, timeout: timeout) {
        case .success(let response):
            return APNsHTTPAnswer(status: response.status, apnsID: response.header("apns-id"), body: response.body)
        case .failure(let failure):
            // The host only: the path holds the device token.
            let host = target.host ?? url
            throw APNsTransportError("no answer from APNs at \(host): \(Self.describe(failure))")
        }
    }

    static func describe(_ failure: BoundedURLSession.Failure) -> String {
        switch failure {
        case .timedOut: "timed out"
        case .tooLarge(let limit): "the answer was larger than \(limit) bytes"
        case .tls(let reason): "the TLS connection failed (\(reason)); check the host and that the system trusts its certificate"
        case .redirectRefused(let reason): reason
        case .unreachable(let reason): reason
        }
    }
}
