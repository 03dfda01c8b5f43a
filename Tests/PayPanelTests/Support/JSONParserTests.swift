import PayPanel
import Testing

@Suite struct JSONParserTests {
    @Test func keepsNumberLiteralsAndMemberOrder() throws {
        let value = try JSONParser().parse(#"{"b": 10.00, "a": 1e3, "c": -0, "d": 123456789012345678901234567890}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "c", "d"])
        #expect(object["b"]?.numberValue?.literal == "10.00")
        #expect(object["a"]?.numberValue?.isInteger == false)
        #expect(object["d"]?.int64Value == nil)  // too large: no silent rounding
    }

    @Test func distinguishesBooleansFromNumbers() throws {
        let value = try JSONParser().parse(#"[true, 1, false, 0, null]"#)
        #expect(value == [true, 1, false, 0, nil])
    }

    @Test(arguments: [
        (#"{"a": 1,}"#, "expected a member name"), (#"[1,]"#, "expected a value"), (#"{"a": 1, "a": 2}"#, "duplicate member"),
        ("[01]", "leading zeros"), ("[1.]", "after '.'"), ("[+1]", "unexpected '+'"), ("[NaN]", "unexpected 'N'"),
        (#"["\ud800"]"#, "lone high surrogate"), (#"["\udc00"]"#, "lone low surrogate"), ("\"a\tb\"", "control character"),
        (#"["\x"]"#, "invalid escape"), ("{} {}", "after the end"), ("", "unexpected end"), ("// c\n{}", "unexpected '/'"),
        ("[1 2]", "expected ',' or ']'"), ("tru", "expected 'true'"),
    ])
    func rejectsNonStandardJSON(text: String, reason: String) {
        #expect {
            try JSONParser().parse(text)
        } throws: { error in
            (error as? JSONParseError)?.reason.contains(reason) == true
        }
    }

    @Test func rejectsInvalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82]] {
            #expect(throws: JSONParseError.self) { try JSONParser().parse(bytes) }
        }
    }

    @Test func boundsNestingDepth() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(deep) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser().parse(fine) }
        // Far deeper input fails the same way instead of exhausting the stack.
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(hostile) }
    }

    @Test func reportsLineAndColumn() {
        #expect {
            try JSONParser().parse("{\n  \"a\": tru\n}")
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.line == 2 && error.column == 8
        }
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser().parse(#"["\u00e9\ud83d\ude00\n\/"]"#)
        #expect(value == ["é😀\n/"])
    }

    @Test(arguments: [
        #"{"a":[1,2.50,{"b":null}],"c":"é\"\\\n\u0001"}"#, "[]", "{}", #""x""#, "-1.5e-3",
    ])
    func writerRoundTripsCompactJSON(text: String) throws {
        let value = try JSONParser().parse(text)
        #expect(try JSONParser().parse(JSONWriter.string(value)) == value)
        #expect(try JSONParser().parse(JSONWriter.string(value, style: .pretty)) == value)
    }

    // Member names compare by their UTF-8 bytes, not by Swift's canonical equivalence: to RFC
    // 8259 and to every other reader of the document these are two different names.
    static let canonicallyEquivalentNames: [(String, String)] = [
        ("K", "\u{212A}"),  // LATIN CAPITAL LETTER K, KELVIN SIGN
        ("\u{E9}", "e\u{301}"),  // é precomposed (NFC), e + COMBINING ACUTE ACCENT (NFD)
        ("\u{C5}", "\u{212B}"),  // Å, ANGSTROM SIGN
    ]

    @Test(arguments: canonicallyEquivalentNames)
    func canonicallyEquivalentNamesAreTwoMembers(first: String, second: String) throws {
        #expect(first == second)  // what String == says: the reason names are compared as bytes
        let object = try #require(JSONParser().parse(#"{"\#(first)": 1, "\#(second)": 2}"#).objectValue)
        #expect(object.count == 2)
        #expect(object.members.map { Array($0.key.utf8) } == [Array(first.utf8), Array(second.utf8)])
        #expect(object[first]?.int64Value == 1)
        #expect(object[second]?.int64Value == 2)
    }

    @Test(arguments: canonicallyEquivalentNames)
    func canonicallyEquivalentNamesAreTwoMembersInLargeObjects(first: String, second: String) throws {
        // From 16 members on, the duplicate check uses a set: it must hash bytes too.
        let filler = (0..<20).map { #""m\#($0)": 0"# }.joined(separator: ", ")
        let object = try #require(JSONParser().parse(#"{\#(filler), "\#(first)": 1, "\#(second)": 2}"#).objectValue)
        #expect(object.count == 22)
        #expect(object[first]?.int64Value == 1)
        #expect(object[second]?.int64Value == 2)
    }

    @Test func escapedKelvinSignAndLetterKAreTwoMembers() throws {
        let object = try #require(JSONParser().parse(#"{"K":1,"\u212A":2}"#).objectValue)
        #expect(object.keys.map { Array($0.unicodeScalars.map(\.value)) } == [[0x4B], [0x212A]])
        #expect(object["K"]?.int64Value == 1)
        #expect(object["\u{212A}"]?.int64Value == 2)
    }

    @Test func lookupForKDoesNotFindTheKelvinSign() throws {
        let value = try JSONParser().parse(#"{"\u212A": 2, "caf\u00e9": 3}"#)
        #expect(value["K"] == nil)
        #expect(value["cafe\u{301}"] == nil)
        #expect(value["\u{212A}"]?.int64Value == 2)
        var object = try #require(value.objectValue)
        object["K"] = 1  // a new member, not a replacement of the Kelvin sign's
        #expect(object.count == 3)
        #expect(object["\u{212A}"]?.int64Value == 2)
    }

    @Test func objectsWithEquivalentButDifferentNamesAreNotEqual() throws {
        #expect(try JSONParser().parse(#"{"K": 1}"#) != JSONParser().parse(#"{"\u212A": 1}"#))
        #expect(try JSONParser().parse(#"{"K": 1}"#) == JSONParser().parse(#"{"\u004B": 1}"#))
    }

    @Test(arguments: [
        #"{"é": 1, "\u00e9": 2}"#,  // the same bytes once unescaped
        #"{"K": 1, "\u004B": 2}"#,
    ])
    func namesWithTheSameBytesAreStillDuplicates(text: String) {
        #expect {
            try JSONParser().parse(text)
        } throws: { error in
            (error as? JSONParseError)?.reason.contains("duplicate member") == true
        }
    }

    @Test func aKnownNameSpelledWithAnEquivalentCharacterIsUnknown() throws {
        let object = try #require(JSONParser().parse(#"{"K": 1, "\u212A": 2}"#).objectValue)
        var reader = JSONFieldReader()
        reader.warnUnknownKeys(object, known: ["K"], at: .root)
        #expect(reader.report.warnings.count == 1)
        #expect(reader.report.warnings.first?.path.unicodeScalars.contains("\u{212A}") == true)
    }

    @Test func quotedMakesControlCharactersVisible() {
        #expect(JSONWriter.quoted("a\nb\u{1}") == #""a\nb\u0001""#)
    }
}

/// A JSON number that equals an integer is read as that integer, exactly, whatever its spelling.
@Suite struct JSONIntegralValueTests {
    @Test(arguments: [
        ("38", 38), ("38.0", 38), ("38.000", 38), ("3.8e1", 38), ("3.8E+1", 38), ("380e-1", 38), ("-0", 0), ("-0.0", 0), ("0e99", 0),
        ("-12.50e1", -125), ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min), ("9.223372036854775807e18", Int64.max),
        ("1e18", 1_000_000_000_000_000_000), ("0.0001e4", 1),
    ] as [(String, Int64)])
    func readsIntegersSpelledAnyWay(_ literal: String, _ expected: Int64) throws {
        let number = try #require(JSONParser().parse("[\(literal)]").arrayValue?.first?.numberValue)
        #expect(number.integralValue == expected, "\(literal)")
    }

    @Test(arguments: ["38.5", "3.85e1", "1e-1", "0.1", "9223372036854775808", "1e19", "1e40", "1e41", "123456789012345678901234567890", "5e-41"])
    func refusesFractionsAndWhatDoesNotFit(_ literal: String) throws {
        let number = try #require(JSONParser().parse("[\(literal)]").arrayValue?.first?.numberValue)
        #expect(number.integralValue == nil, "\(literal)")
    }
}
