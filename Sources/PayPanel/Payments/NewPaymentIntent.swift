/// What a merchant asks for when creating an intent, checked: a positive amount within the
/// Apple Pay maximum, and an order reference that is short, printable and not a card number.
public struct NewPaymentIntent: Sendable, Equatable {
    public let amount: Amount
    public let captureMethod: CaptureMethod
    public let orderReference: String?

    /// The longest order reference kept.
    public static let maximumOrderReferenceLength = 200

    /// Checks the request; throws `invalid_amount` or `invalid_order_reference` with the reason.
    public init(amount: Amount, captureMethod: CaptureMethod = .automatic, orderReference: String? = nil) throws(PaymentInputError) {
        guard amount.minorUnits > 0 else {
            throw PaymentInputError(code: "invalid_amount", message: "the amount \(amount) must be above zero")
        }
        guard !amount.exceedsPaymentMaximum else {
            throw PaymentInputError(
                code: "invalid_amount",
                message: "the amount \(JSONWriter.quoted(amount.decimalString)) is above the maximum of \(Amount.maximumTotalMajorUnits) \(amount.currency.code)")
        }
        if let orderReference {
            let shown = JSONWriter.quoted(SensitiveDigits.redacted(orderReference))
            guard !orderReference.isEmpty, orderReference.count <= NewPaymentIntent.maximumOrderReferenceLength else {
                throw PaymentInputError(
                    code: "invalid_order_reference",
                    message: "the order reference must be 1 to \(NewPaymentIntent.maximumOrderReferenceLength) characters long")
            }
            guard orderReference.unicodeScalars.allSatisfy({ !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }) else {
                throw PaymentInputError(
                    code: "invalid_order_reference",
                    message: "the order reference \(shown) contains a control character: use printable text")
            }
            guard !SensitiveDigits.containsLongDigitRun(orderReference) else {
                throw PaymentInputError(
                    code: "invalid_order_reference",
                    message: "the order reference \(shown) holds \(SensitiveDigits.minimumRun) or more digits in a row, which could be a card number: use another reference")
            }
        }
        self.amount = amount
        self.captureMethod = captureMethod
        self.orderReference = orderReference
    }
}

/// A request the payments code refuses before doing anything.
public struct PaymentInputError: PayPanelError, Equatable {
    public let code: String
    public let message: String

    /// An error with a stable `code` and a message for people.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
