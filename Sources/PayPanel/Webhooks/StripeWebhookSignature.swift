import Foundation

/// The processor's scheme, Stripe's: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`
/// over `"<t>.<body>"`, several `v1=` allowed (a secret rotation), a tolerance of 300 s.
package enum StripeWebhookSignature {
    package static let defaultTolerance: TimeInterval = 300

    /// The header for `body` at `timestamp` (for the processor side and for tests).
    package static func header(timestamp: Int64, body: [UInt8], secret: String) -> String {
        "t=\(timestamp),v1=" + HMACSHA256.mac(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body).hexString
    }

    /// Checks the header against `body` and `secret` at `now`; returns the signed timestamp.
    package static func verify(
        header: String?, body: [UInt8], secret: String, now: Date, tolerance: TimeInterval = defaultTolerance
    ) throws(WebhookSignatureError) -> Int64 {
        let (timestamp, candidates) = try parse(header: header, now: now, tolerance: tolerance)
        let expected = HMACSHA256.mac(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
        var matched = false
        for candidate in candidates where HMACSHA256.constantTimeEqual(candidate, expected) { matched = true }
        guard matched else {
            throw WebhookSignatureError(.noMatchingSignature, "no v1 signature in Stripe-Signature matches --processor-webhook-secret")
        }
        return timestamp
    }

    /// What can be checked before the body has arrived: the header is there, well formed, and
    /// its timestamp within `tolerance` of `now`. A server refuses a request failing this
    /// without reading its body; `verify` repeats it and checks the signature itself.
    package static func checkHeader(_ header: String?, now: Date, tolerance: TimeInterval = defaultTolerance) throws(WebhookSignatureError) {
        _ = try parse(header: header, now: now, tolerance: tolerance)
    }

    private static func parse(header: String?, now: Date, tolerance: TimeInterval) throws(WebhookSignatureError) -> (timestamp: Int64, candidates: [[UInt8]]) {
        guard let header, !header.isEmpty else { throw WebhookSignatureError(.missingHeader, "the Stripe-Signature header is missing") }
        guard header.utf8.count <= 4096 else { throw WebhookSignatureError(.malformedHeader, "Stripe-Signature is longer than 4096 bytes") }
        var timestamp: Int64?
        var candidates: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingCharacters(in: .whitespaces)
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            if key == "t" {
                guard value.utf8.count <= 12, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(value) else {
                    throw WebhookSignatureError(.malformedHeader, "Stripe-Signature's t= must be Unix seconds")
                }
                timestamp = seconds
            } else if key == "v1", let bytes = [UInt8](hexString: value), candidates.count < 16 {
                candidates.append(bytes)
            }
        }
        guard let timestamp else { throw WebhookSignatureError(.malformedHeader, "Stripe-Signature has no t= timestamp") }
        guard !candidates.isEmpty else { throw WebhookSignatureError(.malformedHeader, "Stripe-Signature has no v1= signature") }
        let skew = abs(now.timeIntervalSince1970 - TimeInterval(timestamp))
        guard skew <= tolerance else {
            throw WebhookSignatureError(.staleTimestamp, "Stripe-Signature's timestamp is \(Int(skew)) s from this clock (at most \(Int(tolerance)) s)")
        }
        return (timestamp, candidates)
    }
}
