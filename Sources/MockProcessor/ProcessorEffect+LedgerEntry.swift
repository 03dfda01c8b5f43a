import PayPanel

extension ProcessorEffect {
    /// The mock processor's ledger entry in the library's terms, for `LedgerAgreement` (the
    /// soaks, the CLI and the tests all compare through this one adapter).
    public init(_ entry: LedgerEntry) {
        let status: Status =
            switch entry.status {
            case .approved: .approved
            case .declined: .declined
            case .pending: .pending
            case .challengeRequired: .challengeRequired
            }
        self.init(
            processorID: entry.processorID, reference: entry.reference, operation: entry.operation, refundReference: entry.refundReference,
            amount: entry.amount, status: status, declineCode: entry.declineCode, last4: entry.last4)
    }
}
