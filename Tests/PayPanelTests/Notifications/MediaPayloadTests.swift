import PayPanel
import Testing

@Suite struct MediaPayloadTests {
    private func read(_ value: JSONValue?) -> (MediaPayloadField, ValidationReport) {
        var report = ValidationReport()
        let field = MediaPayloadReader.read(value, at: FieldPath.root.appending("payload"), into: &report)
        return (field, report)
    }

    @Test func aWellFormedStringIsParsed() {
        let (field, report) = read(.string(#"{"subTitle":"Today","imageUrl":"https://cdn.example/a.png","videoUrl":"v.mp4","gifUrl":"file:///tmp/g.gif"}"#))
        #expect(report.isValid)
        #expect(field == .parsed(MediaPayload(subtitle: "Today", imageURL: "https://cdn.example/a.png", videoURL: "v.mp4", gifURL: "file:///tmp/g.gif")))
    }

    @Test func anAbsentKeyIsAbsent() {
        #expect(read(nil).0 == .absent)
        #expect(read(.null).0 == .absent)
    }

    @Test(arguments: [
        (JSONValue.object(JSONObject([("imageUrl", "a.png")])), "must be a string holding a JSON object, not an object"),
        (JSONValue.number(3), "must be a string holding a JSON object, not a number"),
        (JSONValue.string(""), "the string is not valid JSON"),
        (JSONValue.string("{subTitle: 'x'}"), "the string is not valid JSON"),
        (JSONValue.string(#"{"subTitle":"x""#), "the string is not valid JSON"),
        (JSONValue.string("[1,2]"), "must hold a JSON object"),
        (JSONValue.string("\"just text\""), "must hold a JSON object"),
        (JSONValue.string("null"), "must hold a JSON object"),
        (JSONValue.string(#"{"a":1,"a":2}"#), "duplicate"),
        (JSONValue.string(String(repeating: "[", count: 200)), "not valid JSON"),
        (JSONValue.string(#"{"subTitle":"\ud800"}"#), "not valid JSON"),
    ])
    func malformedStringsAreReportedNotCrashed(value: JSONValue, reason: String) {
        let (field, report) = read(value)
        guard case .malformed(_, let problems) = field else {
            Issue.record("expected malformed, got \(field)")
            return
        }
        #expect(problems.first?.path == "payload")
        #expect(problems.first?.reason.contains(reason) == true, "\(problems)")
        #expect(!report.isValid)
    }

    @Test func wronglyTypedMembersAreReportedAndTheRestKept() {
        let (field, _) = read(.string(#"{"subTitle":"Kept","imageUrl":42,"gifUrl":"ftp://host/a.gif"}"#))
        guard case .malformed(let usable, let problems) = field else {
            Issue.record("expected malformed")
            return
        }
        #expect(usable.subtitle == "Kept")
        #expect(problems.map(\.path) == ["payload.imageUrl", "payload.gifUrl"])
        #expect(problems[1].reason.contains("the scheme ftp is not supported"))
    }

    @Test func misspelledKeysDrawAWarningWithTheRightSpelling() {
        let (field, report) = read(.string(#"{"subtitle":"x","imageURL":"a.png"}"#))
        #expect(field == .parsed(MediaPayload()))
        #expect(report.warnings.map(\.reason) == ["unknown key, ignored: the key is spelled subTitle",
                                                   "unknown key, ignored: the key is spelled imageUrl"])
    }

    /// Thousands of corrupted variants of a valid string: every one is either parsed or
    /// reported, none traps. The corruption is a fixed pseudo-random sequence (reproducible).
    @Test func corruptedStringsNeverCrash() {
        let valid = Array(#"{"subTitle":"Today only ✨","imageUrl":"https://cdn.example/offer.png?v=2","gifUrl":"a.gif"}"#.utf8)
        var seed: UInt64 = 0x5EED
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var malformed = 0
        for _ in 0..<3000 {
            var bytes = valid
            for _ in 0...(next() % 4) {
                let position = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: next())
                case 1: bytes.remove(at: position)
                default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: position)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let (field, report) = read(.string(text))
            if case .malformed = field {
                malformed += 1
                #expect(!report.isValid)
            }
        }
        #expect(malformed > 1000)  // the corruption really produced broken strings
    }

    @Test func theEncodedStringReadsBackToTheSameMedia() {
        let media = MediaPayload(subtitle: "Sub \"quoted\"", imageURL: "a.png", gifURL: "b.gif")
        #expect(read(.string(media.encodedString)).0 == .parsed(media))
    }
}
