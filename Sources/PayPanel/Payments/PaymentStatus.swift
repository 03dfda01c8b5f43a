/// Where a payment intent is in its life (DESIGN §4). The raw values are the snake_case names
/// stored in the database and printed in JSON.
public enum PaymentStatus: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Created, or the last attempt failed (`lastError` says why): waiting for a card or token.
    case requiresPaymentMethod = "requires_payment_method"
    /// A 3-D Secure challenge is outstanding.
    case requiresAction = "requires_action"
    /// An authorize, challenge completion, capture or void is in flight, or its outcome is unknown.
    case processing
    /// Authorized with manual capture: capture or cancel before `captureBefore`.
    case requiresCapture = "requires_capture"
    /// The program cannot decide alone (reconciliation exhausted, processor amount differs): an
    /// operator must resolve it.
    case requiresMerchantAction = "requires_merchant_action"
    /// Captured. Refunds continue on the refund ledger; the status never changes again.
    case succeeded
    /// Voided, abandoned, or canceled before authorization. Final.
    case canceled
    /// The authorization lapsed before it was captured. Final.
    case expired

    /// States an intent never leaves.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .canceled, .expired: true
        default: false
        }
    }

    public var description: String { rawValue }

    /// The status named by `text` (its snake_case raw value), or nil.
    public init?(name text: String) {
        self.init(rawValue: text)
    }
}

/// When the authorized amount is captured.
public enum CaptureMethod: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Captured right after the authorization is approved.
    case automatic
    /// Held (`requires_capture`) until the merchant captures or cancels.
    case manual

    public var description: String { rawValue }
}

/// Why an intent was canceled (Stripe's names, plus `operator` for a manual resolution).
public enum CancellationReason: String, Sendable, CaseIterable, CustomStringConvertible {
    case requestedByCustomer = "requested_by_customer"
    case duplicate
    case fraudulent
    /// Nobody paid before the abandonment timer fired.
    case abandoned
    /// An operator resolved a `requires_merchant_action` intent as canceled.
    case `operator`

    /// The reasons a merchant may give when canceling (the others are set by the system).
    public static let merchantReasons: [CancellationReason] = [.requestedByCustomer, .duplicate, .fraudulent, .abandoned]

    public var description: String { rawValue }
}
