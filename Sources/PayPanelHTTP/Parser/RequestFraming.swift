/// The decisions made once the head is complete (RFC 9112 §6.3, §9.3, RFC 9110 §7.2,
/// §10.1.1): how long the body is, whether the client keeps the connection, whether it waits
/// for `100 Continue`. Every ambiguous framing is refused, because an ambiguity is exactly
/// where a proxy in front of us and this server could read different requests.
enum RequestFraming {
    static func head(for line: RequestLine, fields headers: HTTPHeaders, limits: HTTPRequestParser.Limits) throws(HTTPParseError) -> HTTPRequestHead {
        try checkHost(headers, version: line.version)
        let framing = try bodyFraming(headers, version: line.version, limits: limits)
        let connection = headers.lowercasedListElements(for: "connection")
        let keepAlive = switch line.version {
        case .http1_1: !connection.contains("close")
        case .http1_0: connection.contains("keep-alive") && !connection.contains("close")
        }
        let expectations = headers.lowercasedListElements(for: "expect")
        guard expectations.allSatisfy({ $0 == "100-continue" }) else {
            throw HTTPParseError(.expectationFailed, "the only supported expectation is Expect: 100-continue")
        }
        return HTTPRequestHead(
            method: line.method, target: line.target, version: line.version, headers: headers,
            framing: framing, keepAlive: keepAlive, expectsContinue: !expectations.isEmpty && framing != .none)
    }

    private static func checkHost(_ headers: HTTPHeaders, version: HTTPVersion) throws(HTTPParseError) {
        let hosts = headers.values(for: "host")
        if hosts.isEmpty && version == .http1_1 {
            throw .badRequest("an HTTP/1.1 request must have a Host header")
        }
        guard hosts.count <= 1 else {
            throw .badRequest("the request has more than one Host header")
        }
        if let host = hosts.first, !host.utf8.allSatisfy(HTTPGrammar.isHostCharacter) {
            throw .badRequest("the Host header is not a host name or address with an optional port")
        }
    }

    private static func bodyFraming(_ headers: HTTPHeaders, version: HTTPVersion, limits: HTTPRequestParser.Limits) throws(HTTPParseError) -> BodyFraming {
        let lengths = headers.values(for: "content-length")
        let codings = headers.lowercasedListElements(for: "transfer-encoding")
        if headers.contains("transfer-encoding") {
            guard lengths.isEmpty else {
                throw .badRequest("the request has both Transfer-Encoding and Content-Length; send only one")
            }
            guard version == .http1_1 else {
                throw .badRequest("Transfer-Encoding is not allowed in an HTTP/1.0 request")
            }
            guard codings.last == "chunked" else {
                throw .badRequest("chunked must be the final transfer coding of a request")
            }
            guard codings.count == 1 else {
                if codings.dropLast().contains("chunked") {
                    throw .badRequest("the chunked transfer coding is applied more than once")
                }
                throw HTTPParseError(.notImplemented, "only the chunked transfer coding is supported")
            }
            return .chunked
        }
        guard lengths.count <= 1 else {
            throw .badRequest("the request has more than one Content-Length header")
        }
        guard let length = lengths.first else { return .none }
        guard !length.isEmpty, length.utf8.allSatisfy(HTTPGrammar.isDigit) else {
            throw .badRequest("Content-Length must be a decimal number of bytes")
        }
        // Stop as soon as the value passes the limit: no overflow, however many digits.
        var value = 0
        for digit in length.utf8 {
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            guard value <= limits.maxBodyBytes else {
                throw HTTPParseError(.contentTooLarge, "the body is larger than \(limits.maxBodyBytes) bytes")
            }
        }
        return value == 0 ? .none : .contentLength(value)
    }
}
