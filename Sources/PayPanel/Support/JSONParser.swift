/// A strict RFC 8259 JSON reader.
///
/// Strict on purpose, because what it reads comes from outside (requests, push payloads,
/// payment tokens): no comments, no trailing commas, no duplicate keys, no lone surrogates,
/// no invalid UTF-8, no control characters inside strings, and a bounded nesting depth so
/// hostile input cannot exhaust the stack.
package struct JSONParser {
    /// The default nesting limit: far deeper than any legitimate document here.
    package static let defaultMaximumDepth = 64

    package let maximumDepth: Int

    package init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON document; trailing whitespace is allowed, anything else after it is not.
    package func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let buffer = Array(bytes)
        var reader = Reader(bytes: buffer, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        if reader.position < buffer.count {
            throw reader.error("unexpected \(reader.describeCurrent()) after the end of the document")
        }
        return value
    }

    package func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// Why a document is not acceptable JSON, and where (1-based line and column).
package struct JSONParseError: PayPanelError, Equatable {
    package let reason: String
    package let offset: Int
    package let line: Int
    package let column: Int

    package var code: String { "invalid_json" }
    package var message: String { "invalid JSON at line \(line), column \(column): \(reason)" }
}

private struct Reader {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        let column = bytes[lineStart..<offset].filter { $0 & 0xC0 != 0x80 }.count + 1
        return JSONParseError(reason: reason, offset: offset, line: line, column: column)
    }

    func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectKeyword("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectKeyword("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectKeyword("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    mutating func expectKeyword(_ keyword: StaticString) throws(JSONParseError) {
        let start = position
        let expected = UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)
        for byte in expected {
            guard position < bytes.count, bytes[position] == byte else {
                throw error("invalid literal, expected '\(keyword)'", at: start)
            }
            position += 1
        }
    }

    mutating func checkDepth(_ depth: Int) throws(JSONParseError) {
        if depth > maximumDepth {
            throw error("nesting deeper than \(maximumDepth) levels")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        try checkDepth(depth)
        position += 1  // {
        var members: [(key: String, value: JSONValue)] = []
        // Duplicate names, by UTF-8 bytes (`JSONMemberName`): a linear scan below 16 members (no
        // hash table to allocate for the small objects that make up most documents), a set above.
        var seen: Set<JSONMemberName>?
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()), expected a member name in quotes")
            }
            let keyStart = position
            let key = try parseString()
            if seen == nil, members.count >= 16 { seen = Set(members.map { JSONMemberName($0.key) }) }
            let isNew = seen != nil
                ? seen!.insert(JSONMemberName(key)).inserted
                : !members.contains { JSONMemberName.same($0.key, key) }
            guard isNew else {
                throw error("duplicate member name \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()), expected ':' after member name")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append((key, value))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input, expected ',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(JSONObject(members))
            }
            throw error("unexpected \(describeCurrent()), expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        try checkDepth(depth)
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input, expected ',' or ']'") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            throw error("unexpected \(describeCurrent()), expected ',' or ']'")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw error("invalid number: expected a digit", at: position)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw error("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: expected a digit after '.'")
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error("invalid number: expected a digit in the exponent")
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return JSONNumber(validatedLiteral: String(decoding: bytes[start..<position], as: UTF8.self))
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1  // opening quote
        var text = ""
        while true {
            // Fast path: copy a run of plain printable ASCII in one step instead of one scalar at
            // a time (an Apple Pay token's 4 kB base64 signature is one such run).
            let runStart = position
            position = Reader.endOfPlainASCII(in: bytes, from: runStart)
            if position > runStart {
                text += String(decoding: bytes[runStart..<position], as: UTF8.self)
            }
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return text
            case UInt8(ascii: "\\"):
                text.unicodeScalars.append(try parseEscape())
            case 0x00..<0x20:
                throw error("control character 0x\(String(byte, radix: 16, uppercase: true)) in a string must be escaped")
            default:  // 0x80 and above: the fast path took every other byte
                text.unicodeScalars.append(try parseUTF8Scalar())
            }
        }
    }

    /// The index of the first byte at or after `start` that is a control character, non-ASCII,
    /// a quote or a backslash (or the end). Eight bytes per step (SWAR: each test sets the top
    /// bit of every byte lane that matches), then byte by byte for the rest.
    static func endOfPlainASCII(in bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var index = start
            while index + 8 <= buffer.count {
                let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special = (word &- ones &* 0x20) | (quote &- ones) | (backslash &- ones) | word
                if special & highs != 0 { break }
                index += 8
            }
            while index < buffer.count {
                let byte = buffer[index]
                if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                index += 1
            }
            return index
        }
    }

    mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        let start = position
        position += 1  // backslash
        guard position < bytes.count else { throw error("unterminated escape sequence", at: start) }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("lone high surrogate \\u\(String(first, radix: 16, uppercase: true))", at: start) }
                position += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw error("high surrogate not followed by a low surrogate", at: start)
                }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value)!
            }
            if (0xDC00...0xDFFF).contains(first) {
                throw error("lone low surrogate \\u\(String(first, radix: 16, uppercase: true))", at: start)
            }
            return Unicode.Scalar(first)!
        default:
            throw error("invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'", at: start)
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Decodes one multi-byte UTF-8 sequence, rejecting overlong forms, surrogates and
    /// values above U+10FFFF.
    mutating func parseUTF8Scalar() throws(JSONParseError) -> Unicode.Scalar {
        let start = position
        let lead = bytes[position]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default: throw error("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))")
        }
        guard position + length <= bytes.count else { throw error("truncated UTF-8 sequence") }
        for offset in 1..<length {
            let continuation = bytes[position + offset]
            guard continuation & 0xC0 == 0x80 else { throw error("invalid UTF-8 sequence", at: start) }
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value),
            let scalar = Unicode.Scalar(value)
        else { throw error("invalid UTF-8 sequence", at: start) }
        position += length
        return scalar
    }
}
