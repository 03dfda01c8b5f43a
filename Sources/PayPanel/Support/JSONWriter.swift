/// Writes `JSONValue`s as text: compact (the form whose UTF-8 size APNs limits) or pretty
/// (two-space indent, for people). Members keep their order; `/` and non-ASCII are not escaped.
package enum JSONWriter {
    package enum Style: Sendable {
        case compact
        case pretty
    }

    package static func string(_ value: JSONValue, style: Style = .compact) -> String {
        var output = ""
        write(value, style: style, indent: 0, into: &output)
        return output
    }

    private static func write(_ value: JSONValue, style: Style, indent: Int, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += number.literal
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                newline(style: style, indent: indent + 1, into: &output)
                write(element, style: style, indent: indent + 1, into: &output)
            }
            newline(style: style, indent: indent, into: &output)
            output += "]"
        case .object(let object):
            guard !object.isEmpty else { output += "{}"; return }
            output += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { output += "," }
                newline(style: style, indent: indent + 1, into: &output)
                writeString(member.key, into: &output)
                output += style == .pretty ? ": " : ":"
                write(member.value, style: style, indent: indent + 1, into: &output)
            }
            newline(style: style, indent: indent, into: &output)
            output += "}"
        }
    }

    /// `text` as a JSON string literal: how error messages quote user input, so control
    /// characters, line separators and trailing newlines are visible instead of breaking the
    /// line. A message stays one readable line whatever the input: past `limit` characters the
    /// rest is cut (`"AAAA…" (300000 characters)`), and digit runs that could be a card number
    /// are redacted (`SensitiveDigits`), since the input may be anything a payer typed.
    package static func quoted(_ text: String, limit: Int = 100) -> String {
        let scalars = text.unicodeScalars
        var shown = SensitiveDigits.redacted(String(String.UnicodeScalarView(scalars.prefix(limit + 1))))
        var output = ""
        writeString(shown, into: &output, forMessage: true)
        guard output.utf8.count > limit + 2 else { return output }
        // Too long (or escapes made it so): keep what fits in `limit` bytes of the quoted form.
        var kept = String.UnicodeScalarView()
        var length = 0
        for scalar in shown.unicodeScalars {
            var piece = ""
            writeString(String(scalar), into: &piece, forMessage: true)
            length += piece.utf8.count - 2
            if length > limit { break }
            kept.append(scalar)
        }
        shown = String(kept) + "…"
        output = ""
        writeString(shown, into: &output, forMessage: true)
        return output + " (\(scalars.count) characters)"
    }

    private static func newline(style: Style, indent: Int, into output: inout String) {
        guard style == .pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    private static func writeString(_ text: String, into output: inout String, forMessage: Bool = false) {
        output += "\""
        // Most strings (ids, codes, statuses, base64) need no escape at all: append them
        // whole instead of one scalar at a time. Only bytes below 0x20, '"' and '\\' are
        // escaped outside messages (every byte of a multi-byte scalar is 0x80 or more);
        // messages also escape DEL, C1 controls and the line separators, so there only ASCII
        // takes this path.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && (!forMessage || $0 < 0x7F) }) {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if scalar.value < 0x20 || (forMessage && (scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029))
                {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}
