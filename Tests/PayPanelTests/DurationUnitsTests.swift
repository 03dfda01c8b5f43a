import Foundation
import PayPanelHTTP
import Testing

/// A `Duration` becomes seconds, milliseconds, microseconds or nanoseconds, and a `Date` whole
/// Unix seconds, in one place (`Sources/PayPanelHTTP/Time/TimeUnits.swift`). Thirty-odd and
/// twenty hand-written copies once stood across the targets; the source checks find a new one.
@Suite struct DurationUnitsTests {
    @Test func eachUnitKeepsOrDropsTheFractionAsItsNameSays() {
        let duration = Duration.seconds(2) + .nanoseconds(1_500_001)  // 2.001500001 s
        #expect(abs(duration.timeInterval - 2.001500001) < 1e-12)
        #expect(abs(duration.milliseconds - 2001.500001) < 1e-9)
        #expect(duration.wholeMilliseconds == 2001)
        #expect(duration.millisecondsRoundedUp == 2002)
        #expect(Duration.milliseconds(7).millisecondsRoundedUp == 7, "an exact millisecond is not rounded up")
        #expect(Duration.nanoseconds(1).millisecondsRoundedUp == 1, "a wait is never shortened to nothing")
        #expect(duration.wholeMicroseconds == 2_001_500)
        #expect(duration.wholeNanoseconds == 2_001_500_001)
        #expect(Duration.zero.timeInterval == 0 && Duration.zero.millisecondsRoundedUp == 0)
    }

    @Test func noSourceConvertsADurationByHand() throws {
        try Self.expectOnlyIn(
            "Time/TimeUnits.swift", codeContaining: "attoseconds",
            advice: "use Duration's timeInterval, milliseconds, wholeMilliseconds, millisecondsRoundedUp, wholeMicroseconds or wholeNanoseconds")
    }

    @Test func unixSecondsDropTheFractionDownward() {
        #expect(Date(timeIntervalSince1970: 1_795_939_200.999).unixSeconds == 1_795_939_200)
        #expect(Date(timeIntervalSince1970: 0).unixSeconds == 0)
        #expect(Date(timeIntervalSince1970: -0.5).unixSeconds == -1, "rounded down, not toward zero")
    }

    @Test func noSourceConvertsADateToUnixSecondsByHand() throws {
        try Self.expectOnlyIn("Time/TimeUnits.swift", codeContaining: "timeIntervalSince1970.rounded", advice: "use Date's unixSeconds")
    }

    /// Fails for each line of Sources outside `home` (under `Sources/PayPanelHTTP/`) whose code
    /// contains `text`, and when `home` itself has none: then the check looks in the wrong place.
    static func expectOnlyIn(_ home: String, codeContaining text: String, advice: String) throws {
        let (found, filesRead) = try SourceCommentTests.codeLines(containing: text) { $0.hasSuffix(home) }
        let (inHome, _) = try SourceCommentTests.codeLines(containing: text) { !$0.hasSuffix(home) }
        #expect(filesRead > 300, "the walk found the sources")
        #expect(!inHome.isEmpty, "\(home), the one home of the conversion, has no '\(text)'")
        #expect(found.isEmpty, "\(advice) (Sources/PayPanelHTTP/\(home)) instead:\n\(found.joined(separator: "\n"))")
    }
}
