/// A parsed request line: `method SP request-target SP HTTP-version` (RFC 9112 §3).
struct RequestLine: Sendable, Equatable {
    let method: HTTPMethod
    let target: RequestTarget
    let version: HTTPVersion
}

/// The request-line grammar, strict: exactly one space between the three parts, a token
/// method, an origin-form or absolute-form target of at most `maxTargetBytes`, and an
/// `HTTP/1.x` version.
enum RequestLineParser {
    static func parse(_ line: ArraySlice<UInt8>, maxTargetBytes: Int) throws(HTTPParseError) -> RequestLine {
        let parts = line.split(separator: HTTPGrammar.space, omittingEmptySubsequences: false)
        guard !parts.contains(where: \.isEmpty) else {
            throw .badRequest("the request line has an extra space (two in a row, or at its start or end); use exactly one space between its parts")
        }
        guard parts.count == 3 else {
            throw .badRequest("the request line must be a method, a space, the target, a space and the HTTP version")
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        if let bad = method.first(where: { !HTTPGrammar.isTokenCharacter($0) }) {
            throw .badRequest("the method contains the byte \(HTTPGrammar.describe(bad)); a method is a token such as GET")
        }
        guard target.count <= maxTargetBytes else {
            throw HTTPRequestParser.targetTooLong(maxTargetBytes)
        }
        return RequestLine(
            method: HTTPMethod(rawValue: String(decoding: method, as: UTF8.self)),
            target: try RequestTarget(bytes: target),
            version: try parseVersion(version))
    }

    /// `HTTP/1.0`, `HTTP/1.1`, and any later `HTTP/1.x` served as 1.1: RFC 9110 §6.2 has a
    /// server treat a higher minor version as the highest it speaks of the same major one.
    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let digits = bytes.dropFirst(5)
        let wellFormed = bytes.starts(with: Array("HTTP/".utf8)) && digits.count == 3 && HTTPGrammar.isDigit(digits[digits.startIndex])
            && digits[digits.startIndex + 1] == UInt8(ascii: ".") && HTTPGrammar.isDigit(digits[digits.startIndex + 2])
        guard wellFormed else {
            throw .badRequest("the HTTP version must be HTTP/1.1 or HTTP/1.0")
        }
        let (major, minor) = (digits[digits.startIndex], digits[digits.startIndex + 2])
        guard major == UInt8(ascii: "1") else {
            throw HTTPParseError(.httpVersionNotSupported, "only HTTP/1.0 and HTTP/1.1 are supported")
        }
        return minor == UInt8(ascii: "0") ? .http1_0 : .http1_1
    }
}

/// The field-line grammar (RFC 9112 §5): `name ":" OWS value OWS`, strict about the
/// ambiguities that let two parsers disagree — whitespace before the colon, obsolete line
/// folding, control bytes in values.
enum FieldLineParser {
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPHeaders.Field {
        guard let first = line.first, !HTTPGrammar.isWhitespace(first) else {
            throw .badRequest("a header line starts with whitespace; obsolete line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: HTTPGrammar.colon) else {
            throw .badRequest("a header line has no colon")
        }
        let name = line[..<colon]
        guard let last = name.last else {
            throw .badRequest("a header line has an empty name")
        }
        if HTTPGrammar.isWhitespace(last) {
            throw .badRequest("a header name is followed by whitespace before the colon, which is not allowed")
        }
        if let bad = name.first(where: { !HTTPGrammar.isTokenCharacter($0) }) {
            throw .badRequest("a header name contains the byte \(HTTPGrammar.describe(bad)); names are tokens")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, HTTPGrammar.isWhitespace(byte) { value.removeFirst() }
        while let byte = value.last, HTTPGrammar.isWhitespace(byte) { value.removeLast() }
        if let bad = value.first(where: { !HTTPGrammar.isFieldValueByte($0) }) {
            throw .badRequest("a header value contains the control byte \(HTTPGrammar.describe(bad))")
        }
        guard let text = String(validating: value, as: UTF8.self) else {
            throw .badRequest("a header value is not valid UTF-8")
        }
        return HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self), value: text)
    }
}
