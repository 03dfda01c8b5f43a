/// How the payment service talks to the processor and decides: the state machine's policy
/// and the client-side timeout of processor calls.
public struct PaymentServiceConfiguration: Sendable {
    /// Limits and timings of the state machine (sheet deadline, capture window, grace…).
    public var policy: PaymentPolicy
    /// How long a processor call may take before its outcome counts as unknown. Calls for an
    /// Apple Pay sheet get at most the time left until the sheet's deadline.
    public var processorTimeout: Duration

    public init(policy: PaymentPolicy = .standard, processorTimeout: Duration = .seconds(30)) {
        self.policy = policy
        self.processorTimeout = processorTimeout
    }
}
