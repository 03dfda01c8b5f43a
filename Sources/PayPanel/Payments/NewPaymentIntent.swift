/// What a merchant asks for when creating an intent, checked: a positive amount within the
/// Apple Pay maximum, an order reference that is short, printable and holds no card number, and
/// the merchant's metadata (checked when it was made: `Metadata`).
public struct NewPaymentIntent: Sendable, Equatable {
    public let amount: Amount
    public let captureMethod: CaptureMethod
    public let orderReference: String?
    public let metadata: Metadata

    /// The longest order reference kept.
    public static let maximumOrderReferenceLength = 200

    /// Checks the request; throws `invalid_amount`, `invalid_order_reference` or
    /// `card_number_in_text` with the reason.
    public init(
        amount: Amount, captureMethod: CaptureMethod = .automatic, orderReference: String? = nil, metadata: Metadata = .empty
    ) throws(PaymentInputError) {
        guard amount.minorUnits > 0 else {
            throw PaymentInputError(code: "invalid_amount", message: "the amount \(amount) must be above zero")
        }
        guard !amount.exceedsPaymentMaximum else {
            throw PaymentInputError(
                code: "invalid_amount",
                message: "the amount \(JSONWriter.quoted(amount.decimalString)) is above the maximum of \(Amount.maximumTotalMajorUnits) \(amount.currency.code)")
        }
        if let orderReference {
            let shown = JSONWriter.quoted(orderReference)
            guard !orderReference.isEmpty, orderReference.count <= NewPaymentIntent.maximumOrderReferenceLength else {
                throw PaymentInputError(
                    code: "invalid_order_reference",
                    message: "the order reference must be 1 to \(NewPaymentIntent.maximumOrderReferenceLength) characters long",
                    field: "order_reference")
            }
            guard PrintableText.isPrintableLine(orderReference) else {
                throw PaymentInputError(
                    code: "invalid_order_reference",
                    message: "the order reference \(shown) \(PrintableText.reason)",
                    field: "order_reference")
            }
            do {
                try SensitiveDigits.check(orderReference, field: "order_reference")
            } catch {
                throw PaymentInputError(error)
            }
        }
        self.amount = amount
        self.captureMethod = captureMethod
        self.orderReference = orderReference
        self.metadata = metadata
    }
}

/// A request the payments code refuses before doing anything.
public struct PaymentInputError: PayPanelError, Equatable {
    public let code: String
    public let message: String
    /// The request field it is about, when there is one (`order_reference`, `note`).
    public let field: String?

    /// An error with a stable `code` and a message for people.
    public init(code: String, message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// Free text that holds a card number, as the payments code refuses it.
    public init(_ error: CardNumberInTextError) {
        self.init(code: error.code, message: error.message, field: error.field)
    }
}
