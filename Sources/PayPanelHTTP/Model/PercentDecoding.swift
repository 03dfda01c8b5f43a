/// Percent-decoding of one path segment or query component (RFC 3986 §2.1), strict: a "%"
/// must be followed by two hex digits, the decoded bytes must be UTF-8, and NUL is refused
/// because it truncates strings in every C API a path might later reach.
enum PercentDecoding {
    /// The decoded text of `bytes`; `what` names the part for the rejection reason.
    static func decode(_ bytes: ArraySlice<UInt8>, what: String) throws(HTTPParseError) -> String {
        guard bytes.contains(HTTPGrammar.percent) else {
            // Already validated as visible ASCII by the target parser: nothing to decode.
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == HTTPGrammar.percent else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex,
                let high = HTTPGrammar.hexValue(bytes[index + 1]), let low = HTTPGrammar.hexValue(bytes[index + 2])
            else {
                throw .badRequest("the \(what) has a '%' not followed by two hexadecimal digits; write a literal '%' as %25")
            }
            let value = high << 4 | low
            guard value != 0 else {
                throw .badRequest("the \(what) contains an encoded NUL (%00)")
            }
            decoded.append(value)
            index += 3
        }
        guard let text = String(validating: decoded, as: UTF8.self) else {
            throw .badRequest("the \(what) decodes to bytes that are not valid UTF-8")
        }
        return text
    }
}
