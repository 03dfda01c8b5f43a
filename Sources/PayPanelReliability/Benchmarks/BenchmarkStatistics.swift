/// The statistics the benchmarks report, defined once, so that a p99 or a median means the same
/// in every command's output and in docs/benchmarks.md.
public enum BenchmarkStatistics {
    /// The nearest-rank percentile of `sorted` (ascending): the smallest value with at least
    /// `fraction` of all values at or below it. 0 for no values.
    public static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    /// The median of `values`, in any order: the middle one, or the mean of the two middle ones
    /// for an even count. 0 for no values.
    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Seconds from `start` to now, never 0: a rate divides by it.
    public static func seconds(since start: ContinuousClock.Instant) -> Double {
        max(start.duration(to: .now).timeInterval, 1e-9)
    }
}
