/// The mock processor's rules and timing. The defaults are what the CLI uses.
public struct MockProcessorConfiguration: Sendable, Equatable {
    /// How long an approval can be captured: 7 days, the card networks' window for
    /// customer-initiated card payments. Measured on the injected clock.
    public var authorizationWindow: Duration
    /// How old a network-token cryptogram may be when it is authorized, counted from
    /// `Cryptogram.generatedAt`. Ten minutes: twice the signing-time window a backend gives a
    /// fresh Apple Pay token (DESIGN §6), so a token the backend accepted is not refused here
    /// merely for a few retries; anything older is a replayed or hoarded token.
    public var cryptogramLifetime: Duration
    /// How long a REFUND_ASYNC refund stays pending before it succeeds.
    public var refundSettlementDelay: Duration
    /// The delay of every answer (and of lookups).
    public var latency: Latency
    /// Seeds the latency jitter: the same seed gives the same delays.
    public var latencySeed: UInt64

    /// The defaults, or other rules and timing for tests.
    public init(
        authorizationWindow: Duration = .seconds(7 * 24 * 3600),
        cryptogramLifetime: Duration = .seconds(10 * 60),
        refundSettlementDelay: Duration = .seconds(60),
        latency: Latency = .zero,
        latencySeed: UInt64 = 0
    ) {
        self.authorizationWindow = authorizationWindow
        self.cryptogramLifetime = cryptogramLifetime
        self.refundSettlementDelay = refundSettlementDelay
        self.latency = latency
        self.latencySeed = latencySeed
    }
}
