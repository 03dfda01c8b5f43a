import Foundation
import PayPanelReliability
import Testing

/// The benchmarks' statistics have one definition (`BenchmarkStatistics`): three percentiles
/// with two different rank rules, two medians and two elapsed-time helpers once stood in four
/// files, so a "p50" in one command's output was not the p50 of another.
@Suite struct BenchmarkStatisticsTests {
    @Test func percentilesAreNearestRank() {
        let values = (1...20).map(Double.init)  // 1, 2, …, 20
        #expect(BenchmarkStatistics.percentile(values, 0.5) == 10, "the 10th of 20")
        #expect(BenchmarkStatistics.percentile(values, 0.9) == 18)
        #expect(BenchmarkStatistics.percentile(values, 0.99) == 20, "rounded up: never below the fraction")
        #expect(BenchmarkStatistics.percentile(values, 0) == 1)
        #expect(BenchmarkStatistics.percentile([], 0.5) == 0)
    }

    @Test func mediansAverageTheTwoMiddleValuesOfAnEvenCount() {
        #expect(BenchmarkStatistics.median([3, 1, 2]) == 2, "in any order")
        #expect(BenchmarkStatistics.median([4, 1, 3, 2]) == 2.5)
        #expect(BenchmarkStatistics.median([]) == 0)
    }

    @Test func elapsedSecondsAreNeverZero() {
        #expect(BenchmarkStatistics.seconds(since: .now) > 0)
    }

    /// A new percentile or median written beside a benchmark is found here.
    @Test func noBenchmarkDefinesItsOwnStatistics() throws {
        for definition in ["func percentile(", "func median("] {
            let home = "Benchmarks/BenchmarkStatistics.swift"
            let (found, filesRead) = try SourceCommentTests.codeLines(containing: definition) { $0.hasSuffix(home) }
            #expect(filesRead > 300, "the walk found the sources")
            #expect(found.isEmpty, "use BenchmarkStatistics (Sources/PayPanelReliability/\(home)) instead:\n\(found.joined(separator: "\n"))")
        }
    }
}
