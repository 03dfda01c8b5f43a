import Foundation

/// An endpoint's signing secret in the Standard Webhooks form: `whsec_` and the base64 of
/// 24 to 64 random bytes (the spec asks for at least 24). The bytes are the HMAC key.
///
/// It never prints itself: `description` is `whsec_…` so a secret that reaches a log or an
/// error by mistake shows nothing.
package struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    package static let prefix = "whsec_"
    /// The length of a secret PayPanel makes: 32 bytes (256 bits).
    package static let generatedByteCount = 32

    /// The HMAC key.
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A new random secret.
    package static func generate(random: any RandomByteSource = SystemRandomBytes()) -> WebhookSecret {
        WebhookSecret(bytes: random.bytes(generatedByteCount))
    }

    /// Reads `whsec_<base64>`; throws when the prefix, the base64 or the length is wrong.
    package init(parsing text: String) throws(WebhookSignatureError) {
        guard text.hasPrefix(Self.prefix) else {
            throw WebhookSignatureError(.malformedSecret, "a webhook secret starts with whsec_ (copy it from 'paypanel webhooks add')")
        }
        guard let bytes = Base64.decode(String(text.dropFirst(Self.prefix.count))), (24...64).contains(bytes.count) else {
            throw WebhookSignatureError(.malformedSecret, "a webhook secret is whsec_ and the base64 of 24 to 64 bytes")
        }
        self.bytes = bytes
    }

    /// `whsec_<base64>`: show it once, to the endpoint's owner.
    package var revealed: String { Self.prefix + Base64.encode(bytes) }

    package var description: String { "whsec_…" }
}
