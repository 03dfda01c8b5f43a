/// Why an outgoing request got no usable answer.
///
/// `kind` is for programs; `message` is for people and says what failed and where (the host,
/// never a header value or a body: those carry keys and tokens). Text quoted from the server is
/// escaped and cut short here; callers that show it to people also redact card-like digits.
package struct HTTPClientError: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The deadline passed (looking up, connecting, sending or reading).
        case timedOut
        /// Nothing answered: host unknown, connection refused or reset.
        case unreachable
        /// The answer's body is above the caller's limit.
        case tooLarge
        /// The server broke HTTP (bad status line, bad framing, a head above 32 KB).
        case protocolError
        /// The TLS handshake failed (untrusted or expired certificate, wrong host name).
        case tls
        /// A redirect the policy does not follow.
        case redirectRefused
        /// The client cannot do what was asked (https without a TLS transport).
        case unsupported
    }

    package let kind: Kind
    package let message: String
    /// False only when no byte of the request can have left (lookup or connect failed): then
    /// the server never saw it, which is what a caller deciding on a retry needs to know.
    package var requestSent: Bool
    /// URLSession's error code (`URLError.Code`), when the failure came from URLSession.
    package var urlErrorCode: Int?

    package init(_ kind: Kind, _ message: String, requestSent: Bool = true, urlErrorCode: Int? = nil) {
        self.kind = kind
        self.message = message
        self.requestSent = requestSent
        self.urlErrorCode = urlErrorCode
    }

    /// `"HTTP/2 200"`: text from the server as a quoted string, control characters escaped and
    /// cut at `limit` characters, so a hostile answer cannot forge lines in a log or a message.
    package static func quoted(_ text: String, limit: Int = 100) -> String {
        var out = "\""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f || (0x80..<0xa0).contains(scalar.value):
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return text.unicodeScalars.count > limit ? out + "… (\(text.unicodeScalars.count) characters)" : out
    }
}
