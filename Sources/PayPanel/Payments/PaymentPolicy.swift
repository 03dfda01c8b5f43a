import Foundation

/// The numbers the state machine decides with. Passed in, so tests can shorten them and a
/// merchant can tune them; `standard` holds the defaults.
public struct PaymentPolicy: Sendable, Equatable {
    /// Attempts an intent may open (card-testing defense).
    public var maximumAttempts: Int
    /// An intent nobody pays is canceled this long after it last waited for a payment method.
    public var abandonAfter: TimeInterval
    /// The Apple Pay sheet must be answered within 30 s; the backend answers failure at this
    /// point when the outcome is still unknown.
    public var sheetAnswerDeadline: TimeInterval
    /// How long a 3-D Secure challenge may stay open.
    public var challengeTimeout: TimeInterval
    /// The capture window of a customer-initiated card authorization (7 days).
    public var captureWindow: TimeInterval
    /// A call the processor says it never received is failed only after this long: a request
    /// still in transit would otherwise be written off while it succeeds.
    public var reconciliationGrace: TimeInterval
    /// Delays before each lookup of a call in flight or with an unknown outcome; the last
    /// delay repeats.
    public var reconciliationDelays: [TimeInterval]
    /// Lookups without a conclusive answer before the intent (or refund) requires merchant action.
    public var maximumReconciliationLookups: Int
    /// Retries of a call the processor refused before processing (HTTP 503, 429).
    public var maximumProcessorRetries: Int

    /// A policy; every number defaults to the standard one.
    public init(
        maximumAttempts: Int = 5, abandonAfter: TimeInterval = 24 * 3600, sheetAnswerDeadline: TimeInterval = 25,
        challengeTimeout: TimeInterval = 10 * 60, captureWindow: TimeInterval = 7 * 24 * 3600,
        reconciliationGrace: TimeInterval = 5 * 60, reconciliationDelays: [TimeInterval] = [30, 60, 120, 300, 600, 1800],
        maximumReconciliationLookups: Int = 12, maximumProcessorRetries: Int = 3
    ) {
        self.maximumAttempts = maximumAttempts
        self.abandonAfter = abandonAfter
        self.sheetAnswerDeadline = sheetAnswerDeadline
        self.challengeTimeout = challengeTimeout
        self.captureWindow = captureWindow
        self.reconciliationGrace = reconciliationGrace
        self.reconciliationDelays = reconciliationDelays.isEmpty ? [60] : reconciliationDelays
        self.maximumReconciliationLookups = maximumReconciliationLookups
        self.maximumProcessorRetries = maximumProcessorRetries
    }

    /// The defaults.
    public static let standard = PaymentPolicy()

    /// The delay before lookup number `lookupsSoFar + 1`.
    func reconciliationDelay(afterLookups lookupsSoFar: Int) -> TimeInterval {
        reconciliationDelays[min(lookupsSoFar, reconciliationDelays.count - 1)]
    }
}
