/// Why a webhook's signature was refused, or a secret could not be read. The message names
/// the header and what to check; it never holds a secret or a computed signature.
package struct WebhookSignatureError: PayPanelError, Equatable {
    package enum Reason: String, Sendable {
        case malformedSecret = "invalid_webhook_secret"
        case missingHeader = "missing_signature_header"
        case malformedHeader = "invalid_signature_header"
        case staleTimestamp = "timestamp_outside_tolerance"
        case noMatchingSignature = "signature_mismatch"
    }

    package let reason: Reason
    package let message: String

    package init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    package var code: String { reason.rawValue }
}
