/// Byte classes from RFC 9110/9112 and RFC 3986, as plain predicates on `UInt8`, so every
/// rule the parser applies can be read next to the grammar it comes from.
enum HTTPGrammar {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let slash: UInt8 = 0x2F
    static let questionMark: UInt8 = 0x3F
    static let percent: UInt8 = 0x25
    static let ampersand: UInt8 = 0x26

    /// tchar (RFC 9110 §5.6.2): the characters of methods, header names and codings.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// SP / HTAB: optional whitespace around field values and chunk extensions.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// field-vchar / SP / HTAB (RFC 9110 §5.5): anything but control characters. obs-text
    /// (0x80–0xFF) passes here; the value must still be valid UTF-8 to become a `String`.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The value of a hexadecimal digit, or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// pchar minus pct-encoded (RFC 3986 §3.3): unreserved / sub-delims / ":" / "@".
    /// A "%" is checked separately, because it must start a valid escape.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            true
        default:
            false
        }
    }

    /// Characters of a Host value: a reg-name, an IP literal in brackets, and a port. No
    /// commas (a list of hosts is an attack, not a host) and no whitespace.
    static func isHostCharacter(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: ",") && (isPathCharacter(byte) || byte == percent
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]"))
    }

    static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }

    /// A byte for a rejection reason: hex plus its name when it is invisible, never the
    /// surrounding request text (reasons reach logs; request text may hold secrets).
    static func describe(_ byte: UInt8) -> String {
        let hex = "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        switch byte {
        case 0x00: return "\(hex) (NUL)"
        case cr: return "\(hex) (CR)"
        case lf: return "\(hex) (LF)"
        case tab: return "\(hex) (tab)"
        case space: return "\(hex) (space)"
        case 0x21...0x7E: return "\(hex) ('\(Character(Unicode.Scalar(byte)))')"
        default: return hex
        }
    }
}
