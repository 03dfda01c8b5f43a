import Foundation

/// The Standard Webhooks symmetric scheme (v1): the signed content is
/// `"{webhook-id}.{webhook-timestamp}.{body}"`, the signature `v1,<base64 HMAC-SHA256>` under
/// the secret's bytes, and the `webhook-signature` header a space-separated list of them, so a
/// rotation can sign with the old and the new secret at once.
package enum StandardWebhookSignature {
    /// How far a receiver lets `webhook-timestamp` be from its clock (the spec's example: 5 min).
    package static let defaultTolerance: TimeInterval = 300

    /// `v1,<base64>` of `id.timestamp.body` under `secret`.
    package static func sign(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> String {
        let content = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Base64.encode(HMACSHA256.mac(key: secret.bytes, message: content))
    }

    /// The `webhook-signature` header: one signature per secret, newest first.
    package static func header(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        secrets.map { sign(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
    }

    /// Checks a delivery as a receiver must: the three headers present, the timestamp within
    /// `tolerance` of `now` (replays of old deliveries fail), and one of the listed `v1`
    /// signatures equal, in constant time, to the one `secret` gives. Returns the webhook-id.
    package static func verify(
        id: String?, timestamp: String?, signatures: String?, body: [UInt8], secret: WebhookSecret, now: Date,
        tolerance: TimeInterval = defaultTolerance
    ) throws(WebhookSignatureError) -> String {
        guard let id, !id.isEmpty else { throw WebhookSignatureError(.missingHeader, "the webhook-id header is missing") }
        guard let timestamp, !timestamp.isEmpty else { throw WebhookSignatureError(.missingHeader, "the webhook-timestamp header is missing") }
        guard let signatures, !signatures.isEmpty else { throw WebhookSignatureError(.missingHeader, "the webhook-signature header is missing") }
        // The id and the timestamp are part of the signed content: a '.' in either could shift
        // the boundary between them, so the spec forbids it.
        guard !id.contains("."), id.utf8.count <= 256 else {
            throw WebhookSignatureError(.malformedHeader, "webhook-id must be at most 256 characters without '.'")
        }
        guard timestamp.utf8.count <= 12, timestamp.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(timestamp) else {
            throw WebhookSignatureError(.malformedHeader, "webhook-timestamp must be Unix seconds (digits only)")
        }
        let skew = abs(now.timeIntervalSince1970 - TimeInterval(seconds))
        guard skew <= tolerance else {
            throw WebhookSignatureError(
                .staleTimestamp, "webhook-timestamp is \(Int(skew)) s from this clock (at most \(Int(tolerance)) s): a replay, or a clock to fix")
        }
        let expected = HMACSHA256.mac(key: secret.bytes, message: Array("\(id).\(timestamp).".utf8) + body)
        var matched = false
        for candidate in signatures.split(separator: " ").prefix(16) {
            guard candidate.hasPrefix("v1,"), let bytes = Base64.decode(String(candidate.dropFirst(3))) else { continue }
            if HMACSHA256.constantTimeEqual(bytes, expected) { matched = true }
        }
        guard matched else {
            throw WebhookSignatureError(
                .noMatchingSignature, "no v1 signature in webhook-signature matches this secret: check the endpoint's secret (rotated?) and that the body is the raw bytes received")
        }
        return id
    }
}
