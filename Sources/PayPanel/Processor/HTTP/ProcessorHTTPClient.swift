import Foundation
import PayPanelHTTP

/// The processor's calls on PayPanel's one HTTP client (`HTTPClient`, in PayPanelHTTP), sorted
/// by what a failure means for the payment.
///
/// Why the socket path and not URLSession: what matters here is *when* a failure happened.
/// Refused or unresolvable before a byte was sent means the processor never saw the request
/// (safe to retry); anything after the request was written — a timeout, a reset, a close before
/// the answer — means it may have been processed. FoundationNetworking (libcurl) reports a
/// timeout as one error whether it struck while connecting or while waiting for the answer, and
/// a dropped connection as "network connection lost" without saying whether the request was
/// out; it also needs libcurl at run time, which the documented setup does not install. The
/// client's `requestSent` says which.
struct ProcessorHTTPClient: Sendable {
    let endpoint: ProcessorEndpoint
    /// The longest response body read (a processor's objects are small).
    static let maximumBodyBytes = 1024 * 1024
    let client = HTTPClient(maximumRedirects: 0)

    enum Result: Sendable {
        /// A complete response.
        case response(HTTPClientResponse)
        /// The request never left: name lookup failed, or the connection was refused or timed
        /// out while connecting. The processor has not seen it.
        case notSent(reason: String)
        /// The request was (possibly partly) written, and no complete answer came: the
        /// processor may have processed it.
        case noAnswer(reason: String)
    }

    /// Sends `method path` with `headers` and `body` (none for a GET) and waits for the answer
    /// until `deadline`, every status's body read.
    func send(method: String, path: String, headers: [(String, String)], body: [UInt8], deadline: ContinuousClock.Instant) async -> Result {
        let url = HTTPClientURL(isSecure: false, host: endpoint.host, port: endpoint.port, target: path)
        let request = HTTPClientRequest(
            method, url, headers: [("Accept", "application/json")] + headers.map { (name: $0.0, value: $0.1) }, body: method == "GET" ? nil : body)
        switch await client.send(request, maximumBodyBytes: Self.maximumBodyBytes, deadline: deadline, peer: "the processor at \(endpoint)") {
        case .success(let response):
            return .response(response)
        case .failure(let error) where !error.requestSent:
            return .notSent(reason: error.message)
        case .failure(let error):
            // The client's message may quote the server's bytes (a malformed head): redacted,
            // as every reason that may reach a log or an API answer.
            let detail = SensitiveDigits.redacted(error.message)
            // Some bytes may be out; the processor cannot act on a partial request, but a send
            // that failed after the last byte left cannot be told apart: count it as sent.
            let reason = error.kind == .timedOut
                ? "no answer from the processor at \(endpoint) before the timeout (the request was sent)"
                : "the connection to the processor at \(endpoint) broke after the request was sent: \(detail)"
            return .noAnswer(reason: reason)
        }
    }
}

/// `application/x-www-form-urlencoded` with Stripe's bracket keys, as Stripe's SDKs send it.
enum FormEncoding {
    static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        Array(pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&").utf8)
    }

    /// Percent-encodes everything but the unreserved characters (RFC 3986).
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
