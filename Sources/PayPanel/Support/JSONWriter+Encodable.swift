import Foundation

extension JSONWriter {
    /// `value` as compact JSON text: what Foundation's `JSONEncoder` writes with `.sortedKeys`
    /// and `.withoutEscapingSlashes` (a test compares the two), so equal values give equal text
    /// and stored rows written by either read back the same.
    ///
    /// Why not `JSONEncoder`: it boxes every value, builds a dictionary per object and hashes
    /// every key before it writes a byte. `processor serve` encodes the objects a request
    /// changed on its one serial thread, where every microsecond is taken from every request:
    /// one of its intent rows takes about 9 µs with `JSONEncoder` and 6 µs here (a release
    /// build, docs/benchmarks.md). This writes each value into one buffer as it comes and
    /// orders an object's members once, when it closes.
    ///
    /// What it refuses (throws `EncodingError.invalidValue`, never writes something else):
    /// a non-finite number; `Data`, `URL` and `Decimal`, which `JSONEncoder` writes by
    /// strategies of its own; a key written twice in one object; a nested container taken with
    /// `nestedContainer`/`superEncoder` (synthesized `Codable` never takes one: it encodes a
    /// nested value with `encode(_:forKey:)`).
    package static func string(encoding value: some Encodable) throws -> String {
        let writer = EncodableWriter()
        try writer.writeValue(value)
        // Taken and left empty, such a container would be missing here where JSONEncoder
        // writes `{}` or `[]`: refused even then.
        if writer.tookUnsupportedContainer { throw EncodableWriter.refusal(EncodableWriter.unsupportedContainer) }
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// The state of one `JSONWriter.string(encoding:)`: the text so far and the containers open in
/// it, innermost last. A container writes only while it is the innermost one open.
///
/// `@exclusivity(unchecked)`: a writer lives inside one `string(encoding:)` call, on one thread,
/// and nothing else ever sees it, so the run-time exclusivity check on every access to a class's
/// property (a thread-local lookup each time, a third of the cost) can never find anything.
private final class EncodableWriter: Encoder {
    @exclusivity(unchecked) var bytes: [UInt8] = []
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// One value being written: until its `encode(to:)` takes a container, `kind` is nil.
    struct Level {
        enum Kind { case object, array, single }
        var kind: Kind?
        /// Where the container's members begin in `bytes` (after its `{` or `[`).
        var start = 0
        var count = 0
        /// An object's members as written (key, and the byte range of `"key":value`), sorted
        /// by key when the object closes.
        var members: [(key: String, range: Range<Int>)] = []
    }
    @exclusivity(unchecked) private(set) var levels: [Level] = []
    /// Set when a nested container or a super encoder was taken (`refusingContainer`).
    private(set) var tookUnsupportedContainer = false
    static let unsupportedContainer = "nested containers and super encoders are not supported: encode the nested value with encode(_:forKey:)"

    /// Writes `value` where a value is due: primitives directly, anything else by its
    /// `encode(to:)` in a level of its own, closed when that returns.
    func writeValue<T: Encodable>(_ value: T) throws {
        // Metatype comparisons, not `as?` casts: a cast per value was most of the cost.
        if T.self == String.self {
            writeString(value as! String)
        } else if T.self == Int64.self {
            writeInteger(value as! Int64)
        } else if T.self == Int.self {
            writeInteger(value as! Int)
        } else if T.self == Double.self {
            try writeFloatingPoint(value as! Double)
        } else if T.self == Bool.self {
            writeBool(value as! Bool)
        } else if T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw Self.refusal("\(T.self) is written by JSONEncoder's own strategies, not by this writer: encode it as a String or number")
        } else {
            levels.append(Level())
            try value.encode(to: self)
            try closeLevel()
        }
    }

    private func closeLevel() throws {
        let level = levels.removeLast()
        switch level.kind {
        case nil: bytes.append(contentsOf: "{}".utf8)  // encoded nothing: JSONEncoder writes an empty object
        case .single?:
            guard level.count == 1 else { throw Self.refusal("a single-value container was taken and nothing was written to it") }
        case .array?: bytes.append(UInt8(ascii: "]"))
        case .object?:
            try sortMembers(of: level)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Rewrites the object's members in key order (UTF-8 bytes, as `.sortedKeys`) unless they
    /// came in it.
    private func sortMembers(of level: Level) throws {
        let inOrder = zip(level.members, level.members.dropFirst()).allSatisfy { Self.precedes($0.key, $1.key) }
        if inOrder { return }
        let sorted = level.members.sorted { Self.precedes($0.key, $1.key) }
        for (first, second) in zip(sorted, sorted.dropFirst()) where first.key == second.key {
            throw Self.refusal("the key \(JSONWriter.quoted(first.key)) was encoded twice in one object")
        }
        let written = Array(bytes[level.start...])
        bytes.removeSubrange(level.start...)
        for (index, member) in sorted.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: written[(member.range.lowerBound - level.start)..<(member.range.upperBound - level.start)])
        }
    }

    private static func precedes(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { a in
            b.withUTF8 { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order < 0 || (order == 0 && a.count < b.count)
            }
        }
    }

    /// Opens the innermost level as `kind` (again, for a second `container` call of the same
    /// kind); its index, which the container checks before every write.
    func open(_ kind: Level.Kind) -> Int {
        let index = levels.count - 1
        guard levels[index].kind == nil else { return index }
        levels[index].kind = kind
        switch kind {
        case .object: bytes.append(UInt8(ascii: "{"))
        case .array: bytes.append(UInt8(ascii: "["))
        case .single: break
        }
        levels[index].start = bytes.count
        return index
    }

    /// Before a container at `index` writes: it must be the innermost open one, of `kind`.
    func check(_ index: Int, is kind: Level.Kind) throws {
        guard index == levels.count - 1, levels[index].kind == kind else {
            throw Self.refusal("a container was written to after the value it belongs to was finished, or as another kind")
        }
    }

    /// Writes `"key":` and then `value` as the next member of the object at `index`.
    func writeMember(_ key: String, at index: Int, _ value: () throws -> Void) throws {
        try check(index, is: .object)
        if levels[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        levels[index].count += 1
        let start = bytes.count
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        try value()
        levels[index].members.append((key, start..<bytes.count))
    }

    /// Writes `value` as the next element of the array at `index`.
    func writeElement(at index: Int, _ value: () throws -> Void) throws {
        try check(index, is: .array)
        if levels[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        levels[index].count += 1
        try value()
    }

    /// Writes the one value of the single-value container at `index`.
    func writeSingle(at index: Int, _ value: () throws -> Void) throws {
        try check(index, is: .single)
        guard levels[index].count == 0 else { throw Self.refusal("a single-value container was written twice") }
        levels[index].count = 1
        try value()
    }

    func writeNull() { bytes.append(contentsOf: "null".utf8) }

    func writeBool(_ flag: Bool) { bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8) }

    func writeInteger(_ number: some BinaryInteger) { bytes.append(contentsOf: String(number).utf8) }

    /// As `JSONEncoder`: the shortest text that reads back as the same number, without a
    /// trailing `.0`; non-finite numbers have no JSON form.
    func writeFloatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(_ number: F) throws {
        guard number.isFinite else { throw Self.refusal("\(number) is not a JSON number") }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// As `JSONEncoder` with `.withoutEscapingSlashes`: `"` and `\` escaped, control characters
    /// as `\b \f \n \r \t` or `\u00xx`, everything else as it is.
    func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Runs that need no escape (most strings are one: ids, codes, statuses) are copied
            // whole.
            var run = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                run = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
                case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// What a nested container or a super encoder is here: noted, so the whole encoding throws
    /// even when nothing is written to it, and refusing every write meanwhile.
    func refusingContainer<Key: CodingKey>(_: Key.Type = AnyKey.self) -> RefusingContainer<Key> {
        tookUnsupportedContainer = true
        return RefusingContainer<Key>()
    }

    static func refusal(_ reason: String) -> EncodingError {
        EncodingError.invalidValue((), EncodingError.Context(codingPath: [], debugDescription: reason))
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ObjectContainer<Key>(writer: self, index: open(.object)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ArrayContainer(writer: self, index: open(.array))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(writer: self, index: open(.single))
    }
}

private struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: EncodableWriter
    let index: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try writer.writeMember(key.stringValue, at: index) { writer.writeNull() } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try writer.writeMember(key.stringValue, at: index) { try writer.writeValue(value) }
    }
    // The primitives a synthesized `encode(to:)` writes, without the generic path's checks.
    mutating func encode(_ value: String, forKey key: Key) throws { try writer.writeMember(key.stringValue, at: index) { writer.writeString(value) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try writer.writeMember(key.stringValue, at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { try writer.writeMember(key.stringValue, at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try writer.writeMember(key.stringValue, at: index) { try writer.writeFloatingPoint(value) }
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try writer.writeMember(key.stringValue, at: index) { writer.writeBool(value) } }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(writer.refusingContainer(NestedKey.self))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { writer.refusingContainer() }
    mutating func superEncoder() -> any Encoder { writer.refusingContainer() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { writer.refusingContainer() }
}

private struct ArrayContainer: UnkeyedEncodingContainer {
    let writer: EncodableWriter
    let index: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { writer.levels.indices.contains(index) ? writer.levels[index].count : 0 }

    mutating func encodeNil() throws { try writer.writeElement(at: index) { writer.writeNull() } }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.writeElement(at: index) { try writer.writeValue(value) } }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(writer.refusingContainer(NestedKey.self))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { writer.refusingContainer() }
    mutating func superEncoder() -> any Encoder { writer.refusingContainer() }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let writer: EncodableWriter
    let index: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { try writer.writeSingle(at: index) { writer.writeNull() } }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.writeSingle(at: index) { try writer.writeValue(value) } }
    // Every primitive's own `encode(to:)` comes here: each is written directly (the generic
    // path would send it back to its `encode(to:)`).
    mutating func encode(_ value: Bool) throws { try writer.writeSingle(at: index) { writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { try writer.writeSingle(at: index) { writer.writeString(value) } }
    mutating func encode(_ value: Double) throws { try writer.writeSingle(at: index) { try writer.writeFloatingPoint(value) } }
    mutating func encode(_ value: Float) throws { try writer.writeSingle(at: index) { try writer.writeFloatingPoint(value) } }
    mutating func encode(_ value: Int) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int8) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int16) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int32) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: Int64) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt8) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt16) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt32) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt64) throws { try writer.writeSingle(at: index) { writer.writeInteger(value) } }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// What a nested container or super encoder is here (`EncodableWriter.refusingContainer`):
/// every write throws, so a type that needs one fails loudly instead of being written wrong.
private struct RefusingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer, Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var count: Int { 0 }
    private var refusal: EncodingError { EncodableWriter.refusal(EncodableWriter.unsupportedContainer) }

    mutating func encodeNil(forKey key: Key) throws { throw refusal }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw refusal }
    mutating func encodeNil() throws { throw refusal }
    mutating func encode<T: Encodable>(_ value: T) throws { throw refusal }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingContainer<NestedKey>())
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { self }
    mutating func superEncoder(forKey key: Key) -> any Encoder { self }
    func container<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingContainer<NestedKey>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { self }
    func singleValueContainer() -> any SingleValueEncodingContainer { RefusingSingle() }
}

private struct RefusingSingle: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws { throw EncodableWriter.refusal(EncodableWriter.unsupportedContainer) }
    mutating func encode<T: Encodable>(_ value: T) throws { throw EncodableWriter.refusal(EncodableWriter.unsupportedContainer) }
}
