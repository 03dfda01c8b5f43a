/// One chunk-size line of a chunked body (RFC 9112 §7.1): hexadecimal size, then optional
/// extensions `;name` or `;name=value`, which are checked and ignored (nothing here uses
/// them, but a malformed one means the sender and we disagree about the framing).
enum ChunkSizeLine {
    /// The chunk size, saturated at `Int.max` so the caller's limit check refuses it, and how
    /// many bytes of extensions followed it (the caller bounds their total per request).
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (size: Int, extensionBytes: Int) {
        var index = line.startIndex
        var size = 0
        while index < line.endIndex, let digit = HTTPGrammar.hexValue(line[index]) {
            size = size > (Int.max >> 4) ? Int.max : size << 4 | Int(digit)
            index += 1
        }
        guard index > line.startIndex else {
            throw .badRequest("a chunk does not start with its size in hexadecimal")
        }
        try checkExtensions(line[index...])
        return (size, line.endIndex - index)
    }

    private static func checkExtensions(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) {
        var rest = bytes
        while true {
            skipWhitespace(&rest)
            guard let first = rest.first else { return }
            guard first == HTTPGrammar.semicolon else {
                throw .badRequest("a chunk size is followed by the byte \(HTTPGrammar.describe(first)) instead of ';' or CR LF")
            }
            rest.removeFirst()
            skipWhitespace(&rest)
            guard takeToken(&rest) else {
                throw .badRequest("a chunk extension has no name")
            }
            skipWhitespace(&rest)
            guard rest.first == HTTPGrammar.equals else { continue }
            rest.removeFirst()
            skipWhitespace(&rest)
            guard takeToken(&rest) || takeQuotedString(&rest) else {
                throw .badRequest("a chunk extension value is neither a token nor a quoted string")
            }
        }
    }

    private static func skipWhitespace(_ bytes: inout ArraySlice<UInt8>) {
        while let byte = bytes.first, HTTPGrammar.isWhitespace(byte) { bytes.removeFirst() }
    }

    private static func takeToken(_ bytes: inout ArraySlice<UInt8>) -> Bool {
        let start = bytes.startIndex
        while let byte = bytes.first, HTTPGrammar.isTokenCharacter(byte) { bytes.removeFirst() }
        return bytes.startIndex > start
    }

    /// quoted-string (RFC 9110 §5.6.4): DQUOTE *( qdtext / quoted-pair ) DQUOTE.
    private static func takeQuotedString(_ bytes: inout ArraySlice<UInt8>) -> Bool {
        guard bytes.first == HTTPGrammar.quote else { return false }
        var rest = bytes.dropFirst()
        while let byte = rest.first {
            rest.removeFirst()
            switch byte {
            case HTTPGrammar.quote:
                bytes = rest
                return true
            case HTTPGrammar.backslash:
                guard let escaped = rest.first, HTTPGrammar.isFieldValueByte(escaped) else { return false }
                rest.removeFirst()
            default:
                guard HTTPGrammar.isFieldValueByte(byte) else { return false }
            }
        }
        return false
    }
}
