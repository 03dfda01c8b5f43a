import Foundation
@testable import PayPanel
import Testing

/// `JSONWriter.string(encoding:)` writes what Foundation's `JSONEncoder` writes with
/// `.sortedKeys` and `.withoutEscapingSlashes`, byte for byte, so rows written before it (by
/// `JSONEncoder`) and after it are the same text for the same values. Each case is compared
/// with `JSONEncoder`'s own output, not with text written here.
@Suite struct JSONWriterEncodableTests {
    struct Flat: Codable {
        var id: String
        var amount: Int64
        var count: Int
        var ratio: Double
        var flag: Bool
        var note: String?
        var when: Date
        var zebra: String
        var alpha: [[String]]
    }

    struct Nested: Codable {
        var inner: Flat
        var list: [Flat]
        var optionalList: [Int?]
        var small: Int8
        var unsigned: UInt64
        var single: Float
        var map: [String: Int]
        var empty: Empty
    }

    struct Empty: Codable {}

    /// Declared out of key order, so the writer has to reorder them.
    struct Unsorted: Codable {
        var z = 1
        var b = "two"
        var a: [String: String] = ["y": "1", "x": "2", "é": "3", "B": "4", "aa": "5"]
    }

    static func flat(_ text: String, _ ratio: Double) -> Flat {
        Flat(
            id: "pi_3Qx/2", amount: 1250, count: -3, ratio: ratio, flag: true, note: nil,
            when: Date(timeIntervalSince1970: 1_765_148_400.25), zebra: text, alpha: [["k", "v"], ["order", "A-17"]])
    }

    static let texts = [
        "", "plain", "quote \" and backslash \\", "slash / stays", "line\nfeed\r\ttab", "\u{08}\u{0C}\u{01}\u{1F}\u{7F}",
        "é ü 日本 \u{2028}\u{2029} 🙂", "\u{0}",
    ]
    static let numbers: [Double] = [0, -0.0, 1, 0.1, 1e-7, 1e21, 123_456_789_012.5, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -42.125]

    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("A flat record: every string escape and every number form as JSONEncoder writes them", arguments: Array(zip(texts, numbers)))
    func flatRecords(text: String, number: Double) throws {
        let value = Self.flat(text, number)
        #expect(try JSONWriter.string(encoding: value) == Self.foundation(value))
    }

    @Test("Nested values, arrays of optionals, small and unsigned integers, Float, a dictionary and an empty object")
    func nestedValues() throws {
        var second = Self.flat("second", 2.5)
        second.note = "present"
        let value = Nested(
            inner: Self.flat("inner", 0.5), list: [second, Self.flat("third", 1e-3)], optionalList: [1, nil, 3], small: -8,
            unsigned: .max, single: 0.1, map: ["b": 2, "a": 1, "ab": 3], empty: Empty())
        #expect(try JSONWriter.string(encoding: value) == Self.foundation(value))
        #expect(try JSONWriter.string(encoding: [value, value]) == Self.foundation([value, value]))
    }

    @Test("Members are ordered by key (UTF-8 bytes), whatever order the type declares them in")
    func keysAreSorted() throws {
        let text = try JSONWriter.string(encoding: Unsorted())
        #expect(text == #"{"a":{"B":"4","aa":"5","x":"2","y":"1","é":"3"},"b":"two","z":1}"#)
        #expect(text == (try Self.foundation(Unsorted())))
    }

    @Test("Top-level primitives and optionals")
    func primitives() throws {
        #expect(try JSONWriter.string(encoding: "a\"b") == Self.foundation("a\"b"))
        #expect(try JSONWriter.string(encoding: 17) == Self.foundation(17))
        #expect(try JSONWriter.string(encoding: Int?.none) == Self.foundation(Int?.none))
        #expect(try JSONWriter.string(encoding: [Bool]()) == Self.foundation([Bool]()))
    }

    struct TwiceKeyed: Encodable {
        enum Keys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(2, forKey: .b)
            try container.encode(1, forKey: .a)
            try container.encode(3, forKey: .b)
        }
    }

    struct NestedContainerUser: Encodable {
        enum Keys: String, CodingKey { case inner }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedContainer(keyedBy: Keys.self, forKey: .inner)
            try inner.encode(1, forKey: .inner)
        }
    }

    /// Takes a nested container and writes nothing to it: JSONEncoder writes `{"inner":{}}`.
    struct EmptyNestedContainer: Encodable {
        enum Keys: String, CodingKey { case inner }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            _ = container.nestedContainer(keyedBy: Keys.self, forKey: .inner)
        }
    }

    /// Takes a single-value container and writes nothing to it.
    struct EmptySingleValue: Encodable {
        func encode(to encoder: any Encoder) throws { _ = encoder.singleValueContainer() }
    }

    @Test("What it cannot write as JSONEncoder does is refused, never written otherwise")
    func refusals() throws {
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: Double.nan) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: [Double.infinity]) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: Data([1, 2])) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: URL(string: "https://example.com")!) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: Decimal(1)) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: TwiceKeyed()) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: NestedContainerUser()) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: EmptyNestedContainer()) }
        #expect(throws: EncodingError.self) { try JSONWriter.string(encoding: [EmptySingleValue()]) }
    }
}
