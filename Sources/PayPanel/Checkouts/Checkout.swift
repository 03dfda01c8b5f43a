import Foundation

/// A checkout: the payment-action notification as a resource. It holds the panel
/// the payer's device shows (merchant, currency, the segmented amounts, the default segment,
/// the order reference, the expiry), how the payment is captured, and — once someone paid — the
/// payment intent. Its push payload is threaded per checkout (`checkout-<id>`), so a second push
/// after an update replaces this panel in place and no other.
public struct Checkout: Sendable, Equatable {
    public let id: String
    public var status: CheckoutStatus
    /// The validated panel; its amount options, default segment, order reference and expiry
    /// are the checkout's.
    public var panel: PanelConfig
    public var captureMethod: CaptureMethod
    /// The intent of the current (or last) payment try; set by the first pay call.
    public var paymentIntentID: String?
    /// SHA-256 of the client secret. The secret itself is shown once, in the create response.
    public let clientSecretHash: [UInt8]
    public let createdAt: Date
    public var updatedAt: Date
    /// 1 at creation, one more per update: writes are guarded by the version they read.
    public var version: Int64
    /// The merchant's own key-value pairs. Never in the push payload: the device does not see them.
    public var metadata: Metadata

    public init(
        id: String, status: CheckoutStatus, panel: PanelConfig, captureMethod: CaptureMethod, paymentIntentID: String?,
        clientSecretHash: [UInt8], createdAt: Date, updatedAt: Date, version: Int64, metadata: Metadata = .empty
    ) {
        self.id = id
        self.status = status
        self.panel = panel
        self.captureMethod = captureMethod
        self.paymentIntentID = paymentIntentID
        self.clientSecretHash = clientSecretHash
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.metadata = metadata
    }

    public var amountOptions: [Int64] { panel.amountOptions }
    public var defaultSegment: Int { panel.defaultSegment }
    public var orderReference: String? { panel.orderReference }
    public var expiresAt: Date? { panel.expiresAt }

    /// The thread every push about this checkout goes to: one panel per checkout.
    public var threadID: String { "checkout-\(id)" }

    /// True when `amount` (minor units, in the panel's currency) is one of the segments.
    public func offers(_ amount: Int64) -> Bool { panel.amountOptions.contains(amount) }

    /// One Apple Pay JS payment request per amount option, in segment order.
    public var paymentRequests: [PaymentRequest] {
        panel.amountOptions.indices.compactMap { index in
            guard var selector = try? panel.makeSelector(), (try? selector.select(segment: index + 1)) != nil else { return nil }
            return PaymentRequest(panel: panel, selection: selector)
        }
    }

    /// The APNs payload the device gets (≤ 4096 bytes, checked by `PushPayloadReader`).
    public func pushPayload() throws(PaymentActionPayloadError) -> PushPayload {
        try PaymentActionPayloadBuilder(panel: panel, threadID: threadID).build()
    }
}

/// Where a checkout stands. Only an open checkout can be paid, updated or canceled.
public enum CheckoutStatus: String, Sendable, CaseIterable {
    case open
    case paid
    case canceled
    case expired
}
