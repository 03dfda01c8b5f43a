/// A JSON document as parsed, keeping what `JSONSerialization` loses: the literal text of
/// numbers (so `10.00` and `1e3` can be told apart and never pass through `Double`), the order
/// of object keys, and the difference between `true` and `1`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in error messages ("a string", "a number", …).
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value as an `Int64` when it is a JSON integer literal that fits (no fraction, no exponent).
    public var int64Value: Int64? { numberValue?.int64Value }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Member lookup on an object; `nil` for other types or a missing key.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON number kept as its literal text. Conversions are explicit and exact.
public struct JSONNumber: Sendable, Equatable, CustomStringConvertible {
    /// The literal as it appeared in the document (already known to match the JSON grammar).
    public let literal: String

    package init(validatedLiteral: String) {
        self.literal = validatedLiteral
    }

    public init(_ value: Int64) {
        self.literal = String(value)
    }

    public init(_ value: Int) {
        self.literal = String(value)
    }

    /// True when the literal has no fraction and no exponent.
    public var isInteger: Bool {
        !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }

    /// The exact integer value, or nil when the literal is not an integer or does not fit.
    public var int64Value: Int64? {
        isInteger ? Int64(literal) : nil
    }

    /// The exact integer the number equals, whatever its spelling (`38`, `38.0`, `3.8e1`,
    /// `380e-1`), or nil when it has a fraction or does not fit. JSON Schema calls all of these
    /// integers, and clients that keep amounts in floating point send `38.0`; the value is
    /// computed from the digits, never through a `Double`.
    public var integralValue: Int64? {
        var text = Substring(literal)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            // Bounded: beyond ±40 only zero can still be an integer that fits.
            guard let value = Int(text[text.index(after: e)...].drop(while: { $0 == "+" })), abs(value) <= 40 else {
                return text[..<e].allSatisfy { $0 == "0" || $0 == "." } ? 0 : nil
            }
            exponent = value
            text = text[..<e]
        }
        var digits = String(text)
        if let dot = digits.firstIndex(of: ".") {
            exponent -= digits.distance(from: dot, to: digits.endIndex) - 1
            digits.remove(at: dot)
        }
        if exponent < 0 {
            // The digits the exponent moves behind the point must all be zeros.
            let dropped = digits.suffix(-exponent)
            guard dropped.count == -exponent || digits.count < -exponent, dropped.allSatisfy({ $0 == "0" }) else { return nil }
            digits = String(digits.dropLast(-exponent))
        } else {
            digits += String(repeating: "0", count: exponent)
        }
        let trimmed = digits.drop(while: { $0 == "0" })
        guard trimmed.count <= 19 else { return nil }
        return Int64((negative ? "-" : "") + (trimmed.isEmpty ? "0" : trimmed))
    }

    public var description: String { literal }

    /// The literal as error messages show it: at most 40 characters (a number can be a
    /// megabyte of digits) and with card-like digit runs redacted (`SensitiveDigits`), since a
    /// card number typed where a number belongs is still a card number.
    public var messageText: String {
        let shown = SensitiveDigits.redacted(String(literal.prefix(40)))
        return literal.count > 40 ? shown + "… (\(literal.count) characters)" : shown
    }
}

/// A JSON object with its members in document order. Keys are unique (the parser rejects
/// duplicates, which different JSON readers would resolve differently). Keys are compared by
/// their UTF-8 bytes (`JSONMemberName`), in lookups as in the duplicate check.
public struct JSONObject: Sendable, Equatable {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { JSONMemberName.same($0.key, key) })?.value }
        set {
            if let index = members.firstIndex(where: { JSONMemberName.same($0.key, key) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { JSONMemberName.same($0.key, $1.key) && $0.value == $1.value }
    }
}

/// A member name that is equal to another, and hashes, by its UTF-8 bytes.
///
/// Swift's `String ==` (and `Set<String>`, `[String: …]`) compares canonical equivalence: "K"
/// equals U+212A KELVIN SIGN, a precomposed "é" (U+00E9) equals "e" + U+0301. JSON compares
/// member names code point by code point (RFC 8259 §8.3), and so do the other programs that read
/// the same document (the one that signed it, a processor): to them those are two members. Had
/// PayPanel folded them, `{"K": 1, "\u212A": 2}` would be refused as a duplicate, and a key
/// spelled with the Kelvin sign would be read as the field the signer never named.
struct JSONMemberName: Hashable, Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    /// True when `a` and `b` are the same UTF-8 bytes.
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// True when `name` is, byte for byte, one of `names`.
    static func isOne(of names: some Collection<String>, _ name: String) -> Bool {
        names.contains { same($0, name) }
    }

    static func == (lhs: JSONMemberName, rhs: JSONMemberName) -> Bool {
        same(lhs.text, rhs.text)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text.utf8.count)
        for byte in text.utf8 { hasher.combine(byte) }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue {
    /// `.string(value)` or `.null` when the value is absent.
    public static func optional(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    /// `.number(value)` or `.null` when the value is absent.
    public static func optional(_ value: Int64?) -> JSONValue {
        value.map { .number(JSONNumber($0)) } ?? .null
    }

    public static func number(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }
    public static func number(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
}

/// A type with a JSON form for machine output (`--json`).
package protocol JSONRepresentable {
    var json: JSONValue { get }
}
