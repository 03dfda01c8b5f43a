/// One operation as the processor's own ledger records it, in the library's terms, so the
/// ledger-agreement check can compare it with the payments database without depending on a
/// particular processor (the CLI and the tests build these from the mock processor's ledger).
public struct ProcessorEffect: Sendable, Equatable {
    /// What became of the operation at the processor.
    public enum Status: String, Sendable, CaseIterable {
        case approved
        case declined
        /// Accepted, finishing later (an asynchronous refund).
        case pending
        /// An authorization waiting for its 3-D Secure challenge.
        case challengeRequired = "challenge_required"
    }

    /// The attempt id the operation belongs to (the authorization's reference).
    public let reference: String
    public let operation: ProcessorOperation
    /// Refunds only: the refund id (the refund's own reference).
    public let refundReference: String?
    /// The amount asked (authorize) or moved (capture, void, refund), in minor units.
    public let amount: Amount
    public let status: Status

    /// One ledger entry in the library's terms.
    public init(reference: String, operation: ProcessorOperation, refundReference: String?, amount: Amount, status: Status) {
        self.reference = reference
        self.operation = operation
        self.refundReference = refundReference
        self.amount = amount
        self.status = status
    }
}
