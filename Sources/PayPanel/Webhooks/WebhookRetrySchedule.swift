import Foundation

/// When the relay tries a delivery again: the Standard Webhooks example schedule (immediately,
/// then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts over about 75 hours),
/// each delay stretched or shrunk by up to `jitter` at random so retries after an outage do not
/// all arrive together. Pure: the relay passes the attempt count and its random source.
package struct WebhookRetrySchedule: Sendable, Equatable {
    /// The delay before each attempt after the first (attempt 2 waits `delays[0]`, …).
    package let delays: [TimeInterval]
    /// The fraction each delay may move, either way (0.1 = ±10 %).
    package let jitter: Double
    /// The longest a `Retry-After` can push the next attempt.
    package let maximumRetryAfter: TimeInterval

    package static let standard = WebhookRetrySchedule(
        delays: [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600], jitter: 0.1,
        maximumRetryAfter: 24 * 3600)

    package init(delays: [TimeInterval], jitter: Double, maximumRetryAfter: TimeInterval) {
        self.delays = delays
        self.jitter = jitter
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// How many attempts a delivery gets in all.
    package var maximumAttempts: Int { delays.count + 1 }

    /// The wait after `attemptsMade` failed attempts, or nil when that was the last. `unit` is a
    /// random number in 0..<1; `retryAfter` (from a 429 or 503) is honoured: never sooner.
    package func delay(afterAttempts attemptsMade: Int, unit: Double, retryAfter: TimeInterval? = nil) -> TimeInterval? {
        guard attemptsMade >= 1, attemptsMade <= delays.count else { return nil }
        let base = delays[attemptsMade - 1]
        let jittered = base * (1 + jitter * (2 * unit - 1))
        guard let retryAfter else { return jittered }
        return max(jittered, min(max(retryAfter, 0), maximumRetryAfter))
    }
}
