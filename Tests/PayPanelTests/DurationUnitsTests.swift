import Foundation
import PayPanelHTTP
import Testing

/// A `Duration` becomes seconds, milliseconds, microseconds or nanoseconds in one place
/// (`Duration+Units.swift`). Twenty-odd hand-written copies of these sums once stood across the
/// targets, each with its own rounding; the source check finds a new one.
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
        let home = "Time/Duration+Units.swift"
        let (found, filesRead) = try SourceCommentTests.codeLines(containing: "attoseconds") { $0.hasSuffix(home) }
        let (homeLines, _) = try SourceCommentTests.codeLines(containing: "attoseconds") { !$0.hasSuffix(home) }
        #expect(filesRead > 300, "the walk found the sources")
        #expect(!homeLines.isEmpty, "the one home of the conversions is where the test looks")
        #expect(found.isEmpty, "use Duration's timeInterval, milliseconds, wholeMilliseconds, millisecondsRoundedUp, wholeMicroseconds or wholeNanoseconds (Sources/PayPanelHTTP/Time/Duration+Units.swift) instead:\n\(found.joined(separator: "\n"))")
    }
}
