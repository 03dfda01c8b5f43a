import Foundation

extension JSONValue {
    /// This value read as `type` through its `Decodable` conformance: the reading side of
    /// `JSONWriter.string(encoding:)`, so stored JSON is parsed once, by `JSONParser`, and never
    /// again by Foundation's `JSONDecoder`.
    ///
    /// Why not `JSONDecoder`: a caller that has already parsed the text (to read its format
    /// version, say) would hand it the same bytes to parse a second time, into Foundation's own
    /// tree. This walks the `JSONValue` it is given.
    ///
    /// It reads what `JSONDecoder` reads with its default strategies, and refuses what it
    /// refuses (a test compares the two): a missing key is `keyNotFound`, `null` where a value is
    /// due is `valueNotFound`, a value of another JSON type is `typeMismatch`, and a number that
    /// its type cannot hold exactly (`1.5` or `300` as an `Int8`, `1e400` as a `Double`) is
    /// `dataCorrupted`. Integers are read from the number's digits, never through a `Double`.
    /// `Data`, `URL` and `Decimal`, which `JSONDecoder` reads by strategies of its own and the
    /// writer refuses, are refused here too.
    package func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try ValueReader(self, at: []).read(T.self)
    }
}

extension DecodingError {
    /// One line for a person: where in the document, and what was wrong there
    /// (`at intent.amount: expected a number, found a string`).
    package var summary: String {
        let (path, text): ([any CodingKey], String) = switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            (context.codingPath, context.debugDescription)
        case .keyNotFound(let key, let context):
            (context.codingPath + [key], context.debugDescription)
        @unknown default:
            ([], String(describing: self))
        }
        let place = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return place.isEmpty ? text : "at \(place.dropFirst(place.hasPrefix(".") ? 1 : 0)): \(text)"
    }
}

/// One value being read, where it sits in the document: every container below reads through it.
private struct ValueReader {
    let value: JSONValue
    /// Where the value sits: its container's path and its own key. Kept apart, and joined only
    /// when asked for (by an error, or by a container opened on the value): a copy of the path
    /// for every member read cost about a fifth of the reader's time (one outbox payload in a
    /// release build: 10.7–12.0 µs with the copies, 9.0 µs without).
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?

    init(_ value: JSONValue, at codingPath: [any CodingKey]) {
        self.value = value
        self.parentPath = codingPath
        self.key = nil
    }

    init(_ value: JSONValue, in parentPath: [any CodingKey], at key: any CodingKey) {
        self.value = value
        self.parentPath = parentPath
        self.key = key
    }

    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    /// The value as `T`: primitives directly, anything else by its `init(from:)`.
    func read<T: Decodable>(_ type: T.Type) throws -> T {
        // Metatype comparisons, not `as?` casts, as in the writer.
        if T.self == String.self { return try string() as! T }
        if T.self == Int64.self { return try integer(Int64.self) as! T }
        if T.self == Int.self { return try integer(Int.self) as! T }
        if T.self == Bool.self { return try bool() as! T }
        if T.self == Double.self { return try floatingPoint(Double.self) as! T }
        if T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "\(T.self) is read by JSONDecoder's own strategies, not by this reader: store it as a String or number"))
        }
        return try T(from: ValueDecoder(self))
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, expected: "a string") }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, expected: "a boolean") }
        return flag
    }

    /// The number's exact integer value as `T`; `38.0` and `3.8e1` are 38, as `JSONDecoder`
    /// reads them.
    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(T.self, expected: "a number") }
        // Unsigned values above Int64.max have no Int64 form: read those from the digits.
        let exact: T? = if let integral = number.integralValue {
            T(exactly: integral)
        } else if number.isInteger, !number.literal.hasPrefix("-") {
            UInt64(number.literal).flatMap { T(exactly: $0) }
        } else {
            nil
        }
        guard let exact else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath, debugDescription: "the number \(number.messageText) is not a whole number that fits in \(T.self)"))
        }
        return exact
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(T.self, expected: "a number") }
        guard let parsed = T(number.literal), parsed.isFinite else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath, debugDescription: "the number \(number.messageText) does not fit in \(T.self)"))
        }
        return parsed
    }

    func object() throws -> JSONObject {
        guard case .object(let object) = value else { throw mismatch([String: JSONValue].self, expected: "an object") }
        return object
    }

    func array() throws -> [JSONValue] {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, expected: "an array") }
        return elements
    }

    /// `null` where a value is due is a missing value; any other JSON type is a mismatch.
    func mismatch(_ type: Any.Type, expected: String) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "expected \(expected), found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeDescription)"))
    }
}

/// The `Decoder` a type's `init(from:)` is given for one value.
private struct ValueDecoder: Decoder {
    let reader: ValueReader
    var codingPath: [any CodingKey] { reader.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ reader: ValueReader) {
        self.reader = reader
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ObjectContainer<Key>(try reader.object(), at: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ArrayContainer(try reader.array(), at: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(reader: reader)
    }
}

/// An object's members, looked up by their UTF-8 bytes (`JSONObject`'s subscript).
private struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]

    init(_ object: JSONObject, at codingPath: [any CodingKey]) {
        self.object = object
        self.codingPath = codingPath
    }

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    /// The member's reader; a missing key is `keyNotFound`.
    private func member(_ key: Key) throws -> ValueReader {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for the key \(JSONWriter.quoted(key.stringValue))"))
        }
        return ValueReader(value, in: codingPath, at: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).value == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).floatingPoint(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).floatingPoint(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).read(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let member = try member(key)
        return KeyedDecodingContainer(ObjectContainer<NestedKey>(try member.object(), at: member.codingPath))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let member = try member(key)
        return ArrayContainer(try member.array(), at: member.codingPath)
    }

    /// As `JSONDecoder`: the member named `super`, or `null` when there is none.
    func superDecoder() throws -> any Decoder {
        ValueDecoder(ValueReader(object["super"] ?? .null, in: codingPath, at: ElementKey(name: "super")))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(ValueReader(object[key.stringValue] ?? .null, in: codingPath, at: key))
    }
}

/// An array's elements, read in order; a read past the end is `valueNotFound`.
private struct ArrayContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(_ elements: [JSONValue], at codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// Reads the current element with `body` and moves past it only when that succeeded, as
    /// `JSONDecoder` does (a caller may try another type on the same element).
    private mutating func next<T>(_ type: T.Type, _ body: (ValueReader) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(
                codingPath: codingPath + [ElementKey(index: currentIndex)], debugDescription: "the array has no element \(currentIndex): it has \(elements.count)"))
        }
        let value = try body(ValueReader(elements[currentIndex], in: codingPath, at: ElementKey(index: currentIndex)))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool() } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.floatingPoint(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.floatingPoint(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.read(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { KeyedDecodingContainer(ObjectContainer<NestedKey>(try $0.object(), at: $0.codingPath)) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { ArrayContainer(try $0.array(), at: $0.codingPath) }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { ValueDecoder($0) }
    }
}

/// The one value of a single-value container (`Date`, a `RawRepresentable` enum, a wrapper).
private struct SingleValueContainer: SingleValueDecodingContainer {
    let reader: ValueReader
    var codingPath: [any CodingKey] { reader.codingPath }

    func decodeNil() -> Bool { reader.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try reader.bool() }
    func decode(_ type: String.Type) throws -> String { try reader.string() }
    func decode(_ type: Double.Type) throws -> Double { try reader.floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try reader.floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try reader.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try reader.read(type) }
}

/// The key of an array element (`[3]` in a path) or of `super`.
private struct ElementKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    init(name: String) {
        self.stringValue = name
        self.intValue = nil
    }

    init?(stringValue: String) { self.init(name: stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
