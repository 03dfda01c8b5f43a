/// What the payer pays with, as submitted: the Apple Pay token from the sheet, or a card typed
/// into the app ("Pay in app"). The device's pay call and the merchant's confirm both take one;
/// `PaymentService` turns a token into `PaymentMethodData` (verified, decrypted, checked against
/// the intent's amount) before the processor sees it. Held in memory only, for the payment.
public enum SubmittedPaymentMethod: Sendable {
    /// The PKPaymentToken JSON (`paymentData`, `header`…) as the device sent it, and the
    /// merchant's keys to verify and decrypt it with.
    case applePayToken([UInt8], decryptor: ApplePayTokenDecryptor)
    /// A card: `PaymentMethodData.card(number:expiry:holderName:)`.
    case card(PaymentMethodData)
}
