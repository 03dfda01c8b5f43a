import Foundation
import PayPanel
import Testing

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-11-29T14:05:00Z", 1_795_961_100_000 as Int64), ("2026-11-29T16:05:00+02:00", 1_795_961_100_000),
        ("2026-11-29T14:05:00.250Z", 1_795_961_100_250), ("1970-01-01T00:00:00Z", 0),
        ("2023-09-13T13:49:38+00:00", 1_694_612_978_000), ("2024-02-29T00:00:00Z", 1_709_164_800_000),
        ("1969-12-31T23:59:59Z", -1000),
    ])
    func parsesStrictISO8601(text: String, milliseconds: Int64) throws {
        #expect(Timestamp.epochMilliseconds(try Timestamp.parse(text)) == milliseconds)
    }

    @Test(arguments: [
        "2026-11-29", "2026-11-29T14:05:00", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-29T24:00:00Z",
        "2026-11-29T14:05:00Zjunk", " 2026-11-29T14:05:00Z", "2026-11-29T14:05:00+0200", "yesterday", "",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(throws: TimestampError.self) { try Timestamp.parse(text) }
    }

    @Test func formatsInUTCAndRoundTrips() throws {
        for text in ["2026-11-29T14:05:00Z", "2026-11-29T14:05:00.250Z", "1969-12-31T23:59:59Z", "2000-02-29T23:59:59.001Z"] {
            #expect(Timestamp.format(try Timestamp.parse(text)) == text)
        }
        #expect(Timestamp.format(try Timestamp.parse("2026-11-29T16:05:00+02:00")) == "2026-11-29T14:05:00Z")
    }
}
