import Foundation
import PayPanel

/// One operation the mock processor received and processed, as its ledger keeps it: never a
/// card number or a cryptogram, only the network and last four digits.
public struct LedgerEntry: Sendable, Equatable {
    /// Ledger order (1, 2, …); the processor id derives from it.
    public let sequence: Int64
    /// The caller's reference: the attempt id the operation belongs to.
    public let reference: String
    public let operation: ProcessorOperation
    /// Refunds only: the refund's own idempotency key.
    public let refundReference: String?
    /// Authorize: the amount asked; capture/refund: the amount moved; void: the amount released.
    public let amount: Amount
    public let status: LedgerStatus
    public let declineCode: DeclineCode?
    /// The card's network (`visa`, `masterCard`, …), nil when the number's range is unknown.
    public let network: String?
    public let last4: String?
    /// Authorize only: the trigger that chose the outcome (`APPROVE`, `HTTP_500_AFTER`, …).
    public let trigger: String?
    /// Approved authorizations: the last moment to capture.
    public let expiresAt: Date?
    public let createdAt: Date
    /// When the status last changed (a challenge completed, a pending refund settled).
    public let updatedAt: Date

    /// The processor's own id for the operation, e.g. `auth_000001`.
    public var processorID: String {
        let digits = String(sequence)
        return operation.idPrefix + "_" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// What the processor answers about this entry (for a replay or a lookup).
    public var outcome: ProcessorOutcome {
        switch status {
        case .approved: .approved(ProcessorApproval(amount: amount, processorID: processorID, expiresAt: expiresAt))
        case .declined: .declined(declineCode ?? .genericDecline)
        case .pending: .pending
        case .challengeRequired: .challengeRequired
        }
    }

    /// `{"reference", "operation", "amount" (minor units), "currency", "status", "createdAt", …}`;
    /// every key is always present (null when it does not apply), so consumers see one shape.
    public var json: JSONValue {
        [
            "reference": .string(reference),
            "operation": .string(operation.rawValue),
            "amount": .number(amount.minorUnits),
            "currency": .string(amount.currency.code),
            "status": .string(status.rawValue),
            "declineCode": .optional(declineCode?.rawValue),
            "network": .optional(network),
            "last4": .optional(last4),
            "refundReference": .optional(refundReference),
            "processorId": .string(processorID),
            "trigger": .optional(trigger),
            "expiresAt": .optional(expiresAt.map(Timestamp.format)),
            "createdAt": .string(Timestamp.format(createdAt)),
            "updatedAt": .string(Timestamp.format(updatedAt)),
        ]
    }
}

/// The state of a ledger entry.
public enum LedgerStatus: String, Sendable, CaseIterable {
    case approved
    case declined
    /// An asynchronous refund not settled yet.
    case pending
    /// An authorization waiting for its 3-D Secure challenge.
    case challengeRequired = "challenge_required"
}

extension ProcessorOperation {
    /// The prefix of the processor ids of this operation.
    var idPrefix: String {
        switch self {
        case .authorize: "auth"
        case .capture: "cap"
        case .void: "void"
        case .refund: "ref"
        }
    }
}
