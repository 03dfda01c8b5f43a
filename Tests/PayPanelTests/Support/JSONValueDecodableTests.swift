import Foundation
@testable import PayPanel
import Testing

/// `JSONValue.decoded(as:)` reads what Foundation's `JSONDecoder` reads, and refuses what it
/// refuses, so stored rows read the same after it replaced `JSONDecoder`. Each case is compared
/// with `JSONDecoder`'s own result on the same text, not with values written here.
@Suite struct JSONValueDecodableTests {
    typealias Flat = JSONWriterEncodableTests.Flat
    typealias Nested = JSONWriterEncodableTests.Nested

    /// Every primitive a synthesized `Decodable` can ask for, with optionals and nesting.
    struct Everything: Codable, Equatable {
        var text: String
        var flag: Bool
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var double: Double
        var float: Float
        var date: Date
        var optional: String?
        var nestedOptional: [Int?]
        var map: [String: [Double]]
        var status: Status
    }

    enum Status: String, Codable { case open, paid }

    static func foundation<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    static func ours<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONParser().parse(text).decoded(as: type)
    }

    /// What each side made of `text`: the value's JSON (written by Foundation, so equal values
    /// give equal text), or the kind of `DecodingError`.
    static func outcome<T: Codable>(_ type: T.Type, _ text: String, byFoundation: Bool) -> String {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let value = byFoundation ? try foundation(type, text) : try ours(type, text)
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch let error as DecodingError {
            return switch error {
            case .typeMismatch: "typeMismatch"
            case .valueNotFound: "valueNotFound"
            case .keyNotFound: "keyNotFound"
            case .dataCorrupted: "dataCorrupted"
            @unknown default: "unknown"
            }
        } catch {
            return "other: \(error)"
        }
    }

    static let everything = Everything(
        text: "quote \" slash / é 🙂 \u{0}", flag: true, int: -3, int8: -128, int16: 32767, int32: -7, int64: .min, uint: 7,
        uint8: 255, uint16: 0, uint32: .max, uint64: .max, double: 0.1, float: 0.1, date: Date(timeIntervalSince1970: 1_765_148_400.25),
        optional: nil, nestedOptional: [1, nil, 3], map: ["b": [1e-7, -0.0], "a": [.greatestFiniteMagnitude]], status: .paid)

    @Test("A value of every primitive type reads back equal, from JSONEncoder's text and from the project's writer")
    func roundTrips() throws {
        let foundationText = String(decoding: try JSONEncoder().encode(Self.everything), as: UTF8.self)
        #expect(try Self.ours(Everything.self, foundationText) == Self.everything)
        #expect(try Self.ours(Everything.self, JSONWriter.string(encoding: Self.everything)) == Self.everything)
        #expect(try Self.ours([Everything].self, JSONWriter.string(encoding: [Self.everything, Self.everything])) == [Self.everything, Self.everything])
    }

    @Test("The writer's own test values read back as JSONDecoder reads them")
    func writerValues() throws {
        for (text, number) in zip(JSONWriterEncodableTests.texts, JSONWriterEncodableTests.numbers) {
            let written = try JSONWriter.string(encoding: JSONWriterEncodableTests.flat(text, number))
            #expect(Self.outcome(Flat.self, written, byFoundation: false) == Self.outcome(Flat.self, written, byFoundation: true))
        }
    }

    /// Texts that each side must read or refuse alike: integers spelled as decimals and
    /// exponents, values out of range, the wrong JSON type, `null`, missing and extra keys.
    static let numberTexts = [
        "38", "38.0", "3.8e1", "380e-1", "-0", "1.5", "1e400", "-1e400", "128", "-129", "255", "256", "-1",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "1e2", "0.1", "\"1\"", "true", "null",
    ]

    /// Both sides' outcomes for `text` as the one element of a `[T]`.
    static func outcomes<T: Codable>(_ type: T.Type, _ text: String) -> (ours: String, foundation: String) {
        let document = "[\(text)]"
        return (outcome([T].self, document, byFoundation: false), outcome([T].self, document, byFoundation: true))
    }

    @Test("Numbers as every integer and floating-point type: read or refused as JSONDecoder does", arguments: numberTexts)
    func numbers(text: String) {
        let types: [(String, (String) -> (ours: String, foundation: String))] = [
            ("Int", { Self.outcomes(Int.self, $0) }), ("Int8", { Self.outcomes(Int8.self, $0) }),
            ("Int16", { Self.outcomes(Int16.self, $0) }), ("Int32", { Self.outcomes(Int32.self, $0) }),
            ("Int64", { Self.outcomes(Int64.self, $0) }), ("UInt", { Self.outcomes(UInt.self, $0) }),
            ("UInt8", { Self.outcomes(UInt8.self, $0) }), ("UInt64", { Self.outcomes(UInt64.self, $0) }),
            ("Double", { Self.outcomes(Double.self, $0) }), ("Float", { Self.outcomes(Float.self, $0) }),
            ("Bool", { Self.outcomes(Bool.self, $0) }), ("String", { Self.outcomes(String.self, $0) }),
        ]
        for (name, outcomes) in types {
            let (ours, foundation) = outcomes(text)
            if name == "Bool", text == "null" {
                // The one difference: JSONDecoder calls a null element where a Bool is due a type
                // mismatch, and every other type's a missing value; here all are missing values.
                #expect(ours == "valueNotFound" && foundation == "typeMismatch")
                continue
            }
            #expect(ours == foundation, "\(name) from \(text)")
        }
    }

    static let documents = [
        #"{"text":"a"}"#,  // every other key missing
        #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":true,"note":null,"when":0,"zebra":"z","alpha":[]}"#,
        #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":true,"when":0,"zebra":"z","alpha":[],"extra":{"x":[1]}}"#,
        #"{"id":"pi_1","amount":null,"count":2,"ratio":0.5,"flag":true,"when":0,"zebra":"z","alpha":[]}"#,
        #"{"id":"pi_1","amount":"1","count":2,"ratio":0.5,"flag":true,"when":0,"zebra":"z","alpha":[]}"#,
        #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":1,"when":0,"zebra":"z","alpha":[]}"#,
        #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":true,"when":"today","zebra":"z","alpha":[]}"#,
        #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":true,"when":0,"zebra":"z","alpha":[["a",null]]}"#,
        #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":true,"when":0,"zebra":"z","alpha":{"0":["a"]}}"#,
        #"[]"#, #"null"#, #""text""#,
    ]

    @Test("Missing, null, extra and mistyped members: read or refused as JSONDecoder does", arguments: documents)
    func members(text: String) {
        #expect(Self.outcome(Flat.self, text, byFoundation: false) == Self.outcome(Flat.self, text, byFoundation: true))
        #expect(Self.outcome(Everything.self, text, byFoundation: false) == Self.outcome(Everything.self, text, byFoundation: true))
    }

    @Test("An unknown raw value of a String enum is refused, as JSONDecoder refuses it")
    func unknownEnumCase() throws {
        var text = try JSONWriter.string(encoding: Self.everything)
        text = text.replacingOccurrences(of: #""status":"paid""#, with: #""status":"refunded""#)
        #expect(Self.outcome(Everything.self, text, byFoundation: false) == "dataCorrupted")
        #expect(Self.outcome(Everything.self, text, byFoundation: true) == "dataCorrupted")
    }

    /// Written by hand with nested containers, which synthesized `Codable` never takes.
    struct HandWritten: Decodable, Equatable {
        var name: String
        var pairs: [[Int]]
        var inner: String
        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: AnyKey.self)
            name = try object.decode(String.self, forKey: AnyKey("name"))
            var list = try object.nestedUnkeyedContainer(forKey: AnyKey("pairs"))
            var pairs: [[Int]] = []
            while !list.isAtEnd {
                var pair = try list.nestedUnkeyedContainer()
                pairs.append([try pair.decode(Int.self), try pair.decode(Int.self)])
            }
            self.pairs = pairs
            inner = try object.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("box")).decode(String.self, forKey: AnyKey("inner"))
        }
        init(name: String, pairs: [[Int]], inner: String) {
            (self.name, self.pairs, self.inner) = (name, pairs, inner)
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    @Test("Nested keyed and unkeyed containers read as JSONDecoder reads them; a short array is valueNotFound")
    func nestedContainers() throws {
        let text = #"{"name":"n","pairs":[[1,2],[3,4]],"box":{"inner":"i"}}"#
        #expect(try Self.ours(HandWritten.self, text) == HandWritten(name: "n", pairs: [[1, 2], [3, 4]], inner: "i"))
        #expect(try Self.foundation(HandWritten.self, text) == HandWritten(name: "n", pairs: [[1, 2], [3, 4]], inner: "i"))
        let short = #"{"name":"n","pairs":[[1]],"box":{"inner":"i"}}"#
        #expect(throws: DecodingError.self) { try Self.ours(HandWritten.self, short) }
        #expect(throws: DecodingError.self) { try Self.foundation(HandWritten.self, short) }
    }

    @Test("Data, URL and Decimal are refused, as the writer refuses them")
    func foundationStrategiesAreRefused() {
        #expect(throws: DecodingError.self) { try Self.ours([Data].self, #"["AAEC"]"#) }
        #expect(throws: DecodingError.self) { try Self.ours([URL].self, #"["https://example.com"]"#) }
        #expect(throws: DecodingError.self) { try Self.ours([Decimal].self, "[1.5]") }
    }

    @Test("A refusal names the member where it happened")
    func summaryNamesThePlace() throws {
        let text = #"{"id":"pi_1","amount":1,"count":2,"ratio":0.5,"flag":true,"when":0,"zebra":"z","alpha":[["a",7]]}"#
        do {
            _ = try Self.ours(Flat.self, text)
            Issue.record("a number where a string is due was read")
        } catch let error as DecodingError {
            #expect(error.summary == "at alpha[0][1]: expected a string, found a number")
        }
        do {
            _ = try Self.ours(Flat.self, #"{"id":"pi_1"}"#)
            Issue.record("a missing member was not noticed")
        } catch let error as DecodingError {
            #expect(error.summary == #"at amount: no value for the key "amount""#)
        }
    }
}
