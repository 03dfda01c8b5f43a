import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches `https://` media through URLSession with the same rules as `HTTPClient`: one
/// deadline for the whole fetch, a byte limit enforced while reading, status 200 only, at most
/// `maximumRedirects` redirects (to https only). A TLS failure is an error of its own kind
/// (`fetch_tls_failed`), so the extension delivers its best attempt and says why.
package struct HTTPSMediaClient: Sendable {
    package var maximumRedirects: Int

    package init(maximumRedirects: Int = 3) {
        self.maximumRedirects = maximumRedirects
    }

    package func get(_ url: MediaLocation.WebURL, maximumBytes: Int, timeout: Duration) throws(MediaFetchError) -> [UInt8] {
        guard let target = URL(string: url.description) else {
            throw MediaFetchError(.protocolError, "\(url) cannot be given to URLSession")
        }
        var request = URLRequest(url: target)
        request.setValue("paypanel/\(PayPanelVersion.current)", forHTTPHeaderField: "User-Agent")
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        // A session per fetch: the extension fetches one attachment per push.
        let session = BoundedURLSession(maximumRedirects: maximumRedirects)
        switch session.send(request, maximumBytes: maximumBytes, timeout: timeout) {
        case .success(let response):
            guard response.status == 200 else {
                throw MediaFetchError(.httpStatus, "\(url) answered HTTP \(response.status)\(response.status == 404 ? " (not found)" : "")")
            }
            return response.body
        case .failure(.timedOut):
            throw MediaFetchError(.timedOut, "fetching \(url) timed out after \(HTTPClient.seconds(timeout)) s")
        case .failure(.tooLarge(let limit)):
            throw MediaFetchError(.tooLarge, "\(url) is above the \(limit)-byte limit")
        case .failure(.tls(let reason)):
            throw MediaFetchError(.tlsFailed, "\(url): the TLS connection failed (\(reason)); the server's certificate must be valid for \(url.host) and trusted by the system")
        case .failure(.redirectRefused(let reason)):
            throw MediaFetchError(.forbidden, "\(url) \(reason)")
        case .failure(.unreachable(let reason)):
            throw MediaFetchError(.unreachable, "\(url) cannot be reached: \(reason)")
        }
    }
}
