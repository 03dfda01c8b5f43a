import Foundation
import PayPanelHTTP

// Media downloads on PayPanel's one HTTP client (`HTTPClient`, in PayPanelHTTP): a GET with
// one hard deadline for the whole fetch (lookup, connect, request, response, redirects), only
// a 200's body read, and redirects judged by the media rules (`MediaLocation`), not by the
// client. The client bounds the bytes; this file says what a failure means for an attachment.
extension HTTPClient {
    /// PayPanel's `User-Agent`, sent with every request.
    package static var payPanelUserAgent: String { "paypanel/\(PayPanelVersion.current)" }

    /// A client for PayPanel's requests. `secure: .none` (the default) refuses https (no TLS
    /// library is linked); the standard media fetcher gives https a session per fetch instead.
    package init(maximumRedirects: Int = 3, secure: SecureTransport = .none) {
        self.init(userAgent: Self.payPanelUserAgent, maximumRedirects: maximumRedirects, secure: secure)
    }

    /// GETs `url`, following up to `maximumRedirects` redirects (http ones here, by the media
    /// rules; https ones inside URLSession, to https only), and returns the final 200 response.
    /// Everything must finish within `timeout`.
    package func get(_ url: MediaLocation.WebURL, maximumBytes: Int, timeout: Duration) throws(MediaFetchError) -> HTTPClientResponse {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var current = url
        for _ in 0...maximumRedirects {
            let request = HTTPClientRequest("GET", current, headers: [("Accept", "*/*"), ("Accept-Encoding", "identity")])
            let response: HTTPClientResponse
            switch send(request, maximumBodyBytes: maximumBytes, bodies: .onlyOK, deadline: deadline) {
            case .success(let answer): response = answer
            case .failure(let error): throw MediaFetchError(fetching: current, error, timeout: timeout)
            }
            let status = response.status
            if [301, 302, 303, 307, 308].contains(status) {
                guard let location = response.header("Location") else {
                    throw MediaFetchError(.protocolError, "\(current) redirected (HTTP \(status)) without a Location header")
                }
                switch MediaLocation.web(current).resolvingRedirect(location) {
                case .success(.web(let next)):
                    current = next
                    continue
                case .success:
                    throw MediaFetchError(.forbidden, "\(current) redirected to \(JSONWriter.quoted(location)), which is not an http URL; only web redirects are followed")
                case .failure(let problem):
                    throw MediaFetchError(.protocolError, "\(current) redirected to an unusable location: \(problem.message)")
                }
            }
            guard status == 200 else {
                throw MediaFetchError(.httpStatus, "\(current) answered HTTP \(status)\(status == 404 ? " (not found)" : "")")
            }
            return response
        }
        throw MediaFetchError(.protocolError, "\(url) redirected more than \(maximumRedirects) times")
    }

    /// `0.5`, `25`: seconds for messages.
    package static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        if milliseconds % 1000 == 0 { return String(milliseconds / 1000) }
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

extension MediaFetchError {
    /// What a failed download of `url` means for the attachment. Server text in the client's
    /// message is redacted like every message PayPanel shows.
    init(fetching url: MediaLocation.WebURL, _ error: HTTPClientError, timeout: Duration) {
        let detail = SensitiveDigits.redacted(error.message)
        switch error.kind {
        case .timedOut:
            self.init(.timedOut, "fetching \(url) timed out after \(HTTPClient.seconds(timeout)) s (\(detail))")
        case .unsupported:
            self.init(.unsupported, "\(url) uses https, which PayPanel's built-in HTTP client does not support (no TLS library is linked): serve the media over http, or give a local path")
        case .tls:
            self.init(.tlsFailed, "\(url): \(detail); the server's certificate must be valid for \(url.host) and trusted by the system")
        case .redirectRefused:
            self.init(.forbidden, "\(url) \(detail)")
        case .unreachable where url.isSecure:
            self.init(.unreachable, "\(url) cannot be reached: \(detail)")
        case .unreachable:
            self.init(.unreachable, detail)
        case .tooLarge:
            self.init(.tooLarge, detail)
        case .protocolError:
            self.init(.protocolError, detail)
        }
    }
}
