import Foundation

/// A refund of (part of) a captured intent. Several partial refunds may follow one capture;
/// pending and succeeded refunds together never exceed the captured amount.
public struct Refund: Sendable, Equatable {
    /// `re_…`: also the refund's idempotency key at the processor.
    public let id: String
    public let intentID: String
    /// The captured attempt the money goes back to.
    public let attemptID: String
    public let amount: Amount
    public internal(set) var status: RefundStatus
    public let reason: RefundReason?
    /// The processor accepted it and will finish later (asynchronous refunds).
    public internal(set) var processorAccepted: Bool
    public internal(set) var processorID: String?
    public internal(set) var failureCode: String?
    /// Set when the processor's answer was unknown: reconcile by lookup.
    public internal(set) var outcomeUnknownSince: Date?
    public internal(set) var reconciliationLookups: Int
    public internal(set) var processorRetries: Int
    public let createdAt: Date
    public internal(set) var updatedAt: Date

    /// Builds a refund as stored (the ledger reads rows with it).
    public init(
        id: String, intentID: String, attemptID: String, amount: Amount, status: RefundStatus, reason: RefundReason?,
        processorAccepted: Bool = false, processorID: String? = nil, failureCode: String? = nil,
        outcomeUnknownSince: Date? = nil, reconciliationLookups: Int = 0, processorRetries: Int = 0,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.intentID = intentID
        self.attemptID = attemptID
        self.amount = amount
        self.status = status
        self.reason = reason
        self.processorAccepted = processorAccepted
        self.processorID = processorID
        self.failureCode = failureCode
        self.outcomeUnknownSince = outcomeUnknownSince
        self.reconciliationLookups = reconciliationLookups
        self.processorRetries = processorRetries
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Counts against the refundable remainder: not yet final, or final and succeeded.
    public var holdsFunds: Bool { status != .failed }
}

/// Where a refund stands.
public enum RefundStatus: String, Sendable, CaseIterable {
    /// Requested, accepted asynchronously, or its outcome is unknown.
    case pending
    case succeeded
    case failed
    /// Reconciliation gave up, or the processor refunded another amount: an operator decides.
    /// The amount stays reserved until then.
    case requiresMerchantAction = "requires_merchant_action"

    /// Final states.
    public var isFinal: Bool { self == .succeeded || self == .failed }
}

/// Why money is given back (Stripe's reasons).
public enum RefundReason: String, Sendable, CaseIterable {
    case requestedByCustomer = "requested_by_customer"
    case duplicate
    case fraudulent
}
