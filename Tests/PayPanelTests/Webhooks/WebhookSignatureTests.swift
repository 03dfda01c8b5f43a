import Foundation
import PayPanel
import Testing

/// Known-answer vectors: HMAC-SHA-256 (RFC 4231), the Standard Webhooks reference delivery,
/// and a Stripe-Signature computed with Python's hmac module; then rotation, tampering, stale
/// timestamps and malformed headers.
@Suite struct WebhookSignatureTests {
    // The Standard Webhooks reference vector (its libraries' "sign function works" test).
    static let specSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let specID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let specTimestamp: Int64 = 1_614_265_330
    static let specBody = Array(#"{"test": 2432232314}"#.utf8)
    static let specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    static let specNow = Date(timeIntervalSince1970: 1_614_265_330)

    /// The reason `body` was refused with, or nil when it was not.
    static func refusal(_ body: () throws(WebhookSignatureError) -> Void) -> WebhookSignatureError.Reason? {
        do {
            try body()
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func hmacMatchesRFC4231() {
        // Test case 1: 20 bytes of 0x0b, "Hi There".
        #expect(HMACSHA256.mac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)).hexString
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 2: key "Jefe".
        #expect(HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)).hexString
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a 131-byte key, longer than a block, is hashed first.
        #expect(HMACSHA256.mac(key: [UInt8](repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)).hexString
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theStandardWebhooksReferenceVectorSignsAndVerifies() throws {
        let secret = try WebhookSecret(parsing: Self.specSecret)
        #expect(StandardWebhookSignature.sign(id: Self.specID, timestamp: Self.specTimestamp, body: Self.specBody, secret: secret) == Self.specSignature)
        let id = try StandardWebhookSignature.verify(
            id: Self.specID, timestamp: String(Self.specTimestamp), signatures: Self.specSignature, body: Self.specBody, secret: secret, now: Self.specNow)
        #expect(id == Self.specID)
        #expect(secret.revealed == Self.specSecret)
        #expect("\(secret)" == "whsec_…")
    }

    @Test func aRotationSendsBothSignaturesAndEitherSecretVerifies() throws {
        let old = try WebhookSecret(parsing: Self.specSecret)
        let new = WebhookSecret(bytes: [UInt8](repeating: 7, count: 32))
        let header = StandardWebhookSignature.header(id: Self.specID, timestamp: Self.specTimestamp, body: Self.specBody, secrets: [new, old])
        #expect(header.split(separator: " ").count == 2 && header.hasSuffix(Self.specSignature))
        for secret in [old, new] {
            #expect(try StandardWebhookSignature.verify(
                id: Self.specID, timestamp: String(Self.specTimestamp), signatures: header, body: Self.specBody, secret: secret, now: Self.specNow) == Self.specID)
        }
        let stranger = WebhookSecret(bytes: [UInt8](repeating: 9, count: 32))
        #expect(throws: WebhookSignatureError.self) {
            try StandardWebhookSignature.verify(
                id: Self.specID, timestamp: String(Self.specTimestamp), signatures: header, body: Self.specBody, secret: stranger, now: Self.specNow)
        }
    }

    @Test(arguments: [
        // (what is changed, expected reason)
        ("body", WebhookSignatureError.Reason.noMatchingSignature),
        ("id", .noMatchingSignature),
        ("stale", .staleTimestamp),
        ("future", .staleTimestamp),
        ("missing", .missingHeader),
        ("dotted id", .malformedHeader),
        ("bad timestamp", .malformedHeader),
        ("v1a only", .noMatchingSignature),
    ])
    func tamperedOrStaleDeliveriesAreRefused(change: String, reason: WebhookSignatureError.Reason) throws {
        let secret = try WebhookSecret(parsing: Self.specSecret)
        var id: String? = Self.specID
        var timestamp: String? = String(Self.specTimestamp)
        var signatures: String? = Self.specSignature
        var body = Self.specBody
        var now = Self.specNow
        switch change {
        case "body": body = Array(#"{"test":2432232314}"#.utf8)
        case "id": id = "msg_other"
        case "stale": now = Self.specNow.addingTimeInterval(301)
        case "future": now = Self.specNow.addingTimeInterval(-301)
        case "missing": signatures = nil
        case "dotted id": id = "msg.1"
        case "bad timestamp": timestamp = "1614265330.5"
        default: signatures = "v1a," + Self.specSignature.dropFirst(3)
        }
        #expect(Self.refusal { () throws(WebhookSignatureError) in _ = try StandardWebhookSignature.verify(id: id, timestamp: timestamp, signatures: signatures, body: body, secret: secret, now: now) }
            == reason)
    }

    @Test func fiveMinutesEitherWayIsStillAccepted() throws {
        let secret = try WebhookSecret(parsing: Self.specSecret)
        for offset in [-300.0, 300.0] {
            _ = try StandardWebhookSignature.verify(
                id: Self.specID, timestamp: String(Self.specTimestamp), signatures: Self.specSignature, body: Self.specBody, secret: secret,
                now: Self.specNow.addingTimeInterval(offset))
        }
    }

    @Test func secretsOutsideTheFormatAreRefused() {
        for text in ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_not base64!", "whsec_" + Data(count: 16).base64EncodedString()] {
            #expect(throws: WebhookSignatureError.self) { try WebhookSecret(parsing: text) }
        }
    }

    // A Stripe-Signature computed independently: python3 -c 'import hmac,hashlib;
    // print(hmac.new(b"whsec_stripe_test_secret_0123456789", b"1614265330." + body, hashlib.sha256).hexdigest())'
    static let stripeSecret = "whsec_stripe_test_secret_0123456789"
    static let stripeBody = Array(#"{"id":"evt_1","object":"event"}"#.utf8)
    static let stripeHex = "02229dbfdb65e04dc802051accb299f33573c2549e5c2a0a58a7257c1b6c2848"

    @Test func theStripeSchemeMatchesAnIndependentHMAC() throws {
        #expect(StripeWebhookSignature.header(timestamp: 1_614_265_330, body: Self.stripeBody, secret: Self.stripeSecret)
            == "t=1614265330,v1=\(Self.stripeHex)")
        // Several v1= (a rotation) and unknown schemes (v0=) are fine: one match is enough.
        let header = "t=1614265330,v0=abcd,v1=\(String(repeating: "0", count: 64)),v1=\(Self.stripeHex)"
        #expect(try StripeWebhookSignature.verify(header: header, body: Self.stripeBody, secret: Self.stripeSecret, now: Self.specNow) == 1_614_265_330)
    }

    @Test func forgedAndStaleStripeSignaturesAreRefused() {
        let good = "t=1614265330,v1=\(Self.stripeHex)"
        let otherBody: [UInt8] = Array(#"{"id":"evt_2","object":"event"}"#.utf8)
        let later: Date = Self.specNow.addingTimeInterval(301)
        var cases: [(String?, [UInt8], Date, WebhookSignatureError.Reason)] = []
        cases.append((good, otherBody, Self.specNow, .noMatchingSignature))
        cases.append((good, Self.stripeBody, later, .staleTimestamp))
        cases.append(("t=1614265331,v1=\(Self.stripeHex)", Self.stripeBody, Self.specNow, .noMatchingSignature))
        cases.append(("v1=\(Self.stripeHex)", Self.stripeBody, Self.specNow, .malformedHeader))
        cases.append(("t=1614265330", Self.stripeBody, Self.specNow, .malformedHeader))
        cases.append((nil, Self.stripeBody, Self.specNow, .missingHeader))
        for (header, body, now, reason) in cases {
            #expect(Self.refusal { () throws(WebhookSignatureError) in _ = try StripeWebhookSignature.verify(header: header, body: body, secret: Self.stripeSecret, now: now) } == reason,
                    "\(header ?? "nil")")
        }
    }

    @Test func theRetryScheduleSpansAboutThreeDaysWithBoundedJitter() {
        let schedule = WebhookRetrySchedule.standard
        #expect(schedule.maximumAttempts == 10)
        let total: TimeInterval = schedule.delays.reduce(0, +)
        let specTotal: TimeInterval = 75 * 3600 + 35 * 60 + 5  // 75:35:05, as the spec's table
        #expect(total == specTotal)
        #expect(schedule.delay(afterAttempts: 1, unit: 0.5) == 5)
        #expect(schedule.delay(afterAttempts: 1, unit: 0) == 4.5 && schedule.delay(afterAttempts: 1, unit: 0.999_999)! < 5.5)
        #expect(schedule.delay(afterAttempts: 10, unit: 0.5) == nil)
        #expect(schedule.delay(afterAttempts: 1, unit: 0.5, retryAfter: 120) == 120)
        #expect(schedule.delay(afterAttempts: 3, unit: 0.5, retryAfter: 120) == 1800)  // never sooner than the schedule
        #expect(schedule.delay(afterAttempts: 1, unit: 0.5, retryAfter: 10 * 86_400) == 86_400)  // bounded
    }
}
