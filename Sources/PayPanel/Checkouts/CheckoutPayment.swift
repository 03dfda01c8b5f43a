/// The answer of the device's pay call, given within the Apple Pay sheet's budget: what the
/// sheet shows, the checkout's status after the call, the intent, and — for a failure — a
/// message the payer may read (never the processor's own words, never card data).
public struct CheckoutPayment: Sendable, Equatable {
    public let sheet: SheetAnswer
    /// The checkout's status: `paid` after a success, `open` after a failure (pay again).
    public let status: CheckoutStatus
    public let paymentIntentID: String
    /// The intent's status, for the merchant's logs.
    public let paymentIntentStatus: PaymentStatus
    public let error: CheckoutPaymentError?

    public init(
        sheet: SheetAnswer, status: CheckoutStatus, paymentIntentID: String, paymentIntentStatus: PaymentStatus,
        error: CheckoutPaymentError?
    ) {
        self.sheet = sheet
        self.status = status
        self.paymentIntentID = paymentIntentID
        self.paymentIntentStatus = paymentIntentStatus
        self.error = error
    }

    /// `{"sheet": "success"|"failure", "status", "payment_intent", "error"?: {"code", "message"}}`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("sheet", .string(sheet.rawValue)), ("status", .string(status.rawValue)),
            ("payment_intent", .string(paymentIntentID)),
        ]
        if let error { members.append(("error", .orderedObject([("code", .string(error.code)), ("message", .string(error.message))]))) }
        return .orderedObject(members)
    }
}

/// Why a payment failed, for the payer: a stable code and a sentence safe to show.
public struct CheckoutPaymentError: Sendable, Equatable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
