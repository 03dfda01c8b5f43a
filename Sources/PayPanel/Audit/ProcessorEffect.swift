/// One operation as the processor's own ledger records it, in the library's terms, so the
/// ledger-agreement check can compare it with the payments database without depending on a
/// particular processor (MockProcessor builds these from its ledger entries:
/// `ProcessorEffect(entry)`).
package struct ProcessorEffect: Sendable, Equatable {
    /// What became of the operation at the processor.
    package enum Status: String, Sendable, CaseIterable {
        case approved
        case declined
        /// Accepted, finishing later (an asynchronous refund).
        case pending
        /// An authorization waiting for its 3-D Secure challenge.
        case challengeRequired = "challenge_required"
    }

    /// The processor's own id for the operation (`auth_000001`), so a finding can be looked up
    /// at the processor.
    package let processorID: String
    /// The attempt id the operation belongs to (the authorization's reference).
    package let reference: String
    package let operation: ProcessorOperation
    /// Refunds only: the refund id (the refund's own reference).
    package let refundReference: String?
    /// The amount asked (authorize) or moved (capture, void, refund).
    package let amount: Amount
    package let status: Status
    /// Declined operations: why, as the processor said.
    package let declineCode: DeclineCode?
    /// The last four digits of the card the processor authorized (authorizations only).
    package let last4: String?

    /// One ledger entry in the library's terms.
    package init(
        processorID: String, reference: String, operation: ProcessorOperation, refundReference: String?, amount: Amount, status: Status,
        declineCode: DeclineCode? = nil, last4: String? = nil
    ) {
        self.processorID = processorID
        self.reference = reference
        self.operation = operation
        self.refundReference = refundReference
        self.amount = amount
        self.status = status
        self.declineCode = declineCode
        self.last4 = last4
    }
}
