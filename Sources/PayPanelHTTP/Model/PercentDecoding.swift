/// Percent-decoding (RFC 3986 §2.1), the project's one: the HTTP server's path segments and
/// query components, the mock processor's form bodies and the push media URLs all decode here.
/// Strict: a "%" must be followed by two hex digits, the decoded bytes must be UTF-8, and NUL is
/// refused because it truncates strings in every C API a value might later reach.
public enum PercentDecoding {
    /// Why text could not be decoded.
    public enum Failure: Error, Sendable, Equatable {
        /// A '%' not followed by two hexadecimal digits.
        case badEscape
        /// A NUL byte, encoded (%00) or not.
        case nul
        /// The decoded bytes are not UTF-8.
        case notUTF8
    }

    /// The decoded text of `bytes`. `plusIsSpace`: a '+' stands for a space, as HTML forms
    /// (`application/x-www-form-urlencoded`) write one; elsewhere it is a '+'.
    public static func decode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool = false) -> Result<String, Failure> {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case HTTPGrammar.percent:
                guard let high = iterator.next().flatMap(HTTPGrammar.hexValue), let low = iterator.next().flatMap(HTTPGrammar.hexValue) else {
                    return .failure(.badEscape)
                }
                decoded.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                decoded.append(UInt8(ascii: " "))
            default:
                decoded.append(byte)
            }
        }
        guard !decoded.contains(0) else { return .failure(.nul) }
        guard let text = String(validating: decoded, as: UTF8.self) else { return .failure(.notUTF8) }
        return .success(text)
    }

    /// One path segment or query component of a request target; `what` names the part for the
    /// rejection reason.
    static func decode(_ bytes: ArraySlice<UInt8>, what: String) throws(HTTPParseError) -> String {
        guard bytes.contains(HTTPGrammar.percent) else {
            // Already validated as visible ASCII by the target parser: nothing to decode.
            return String(decoding: bytes, as: UTF8.self)
        }
        switch decode(bytes) {
        case .success(let text): return text
        case .failure(.badEscape): throw .badRequest("the \(what) has a '%' not followed by two hexadecimal digits; write a literal '%' as %25")
        case .failure(.nul): throw .badRequest("the \(what) contains an encoded NUL (%00)")
        case .failure(.notUTF8): throw .badRequest("the \(what) decodes to bytes that are not valid UTF-8")
        }
    }
}
