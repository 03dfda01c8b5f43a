import Foundation

/// One operation as the processor's own ledger records it, as an operator may see it beside
/// PayPanel's attempts and refunds (the console's intent page): never a card number or a
/// cryptogram, only the network, the last four digits, amounts and the outcome.
package struct ProcessorLedgerRow: Sendable, Equatable {
    /// The processor's id for the operation (`auth_000001`, or the processor's object id).
    package let processorID: String
    /// The attempt id the operation belongs to.
    package let reference: String
    /// `authorize`, `capture`, `void` or `refund`.
    package let operation: String
    /// Refunds only: PayPanel's refund id.
    package let refundReference: String?
    package let amount: Int64
    package let currency: String
    /// `approved`, `declined`, `pending` or `challenge_required`.
    package let status: String
    package let declineCode: String?
    package let network: String?
    package let last4: String?
    package let createdAt: Date?

    package init(
        processorID: String, reference: String, operation: String, refundReference: String?, amount: Int64, currency: String,
        status: String, declineCode: String?, network: String?, last4: String?, createdAt: Date?
    ) {
        self.processorID = processorID
        self.reference = reference
        self.operation = operation
        self.refundReference = refundReference
        self.amount = amount
        self.currency = currency
        self.status = status
        self.declineCode = declineCode
        self.network = network
        self.last4 = last4
        self.createdAt = createdAt
    }
}

/// What the processor's ledger says about some attempts, or why it cannot be read.
package enum ProcessorLedgerView: Sendable, Equatable {
    case rows([ProcessorLedgerRow])
    /// The processor has no ledger this program can read (a real processor, an old mock):
    /// said as it is, never shown as an empty ledger.
    case unavailable(reason: String)
}

/// Reads the processor's own ledger for the console; injected by `serve` (the in-process mock's
/// ledger file, or an HTTP processor's admin endpoint).
package protocol ProcessorLedgerReading: Sendable {
    /// The entries of these attempts, oldest first: each attempt's authorization and its
    /// captures, voids and refunds.
    func entries(ofAttempts attemptIDs: [String]) async -> ProcessorLedgerView
}
