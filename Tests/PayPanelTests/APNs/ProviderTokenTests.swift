import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The provider token: an ES256 JWT whose signature the public key verifies, reused and
/// refreshed by Apple's rules on the injected clock.
@Suite struct ProviderTokenTests {
    struct Parts {
        let header: JSONValue
        let claims: JSONValue
        let signingInput: [UInt8]
        let signature: [UInt8]
    }

    func parts(_ jwt: String) throws -> Parts {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3)
        let header = try JSONParser().parse(try #require(Base64URL.decode(pieces[0])))
        let claims = try JSONParser().parse(try #require(Base64URL.decode(pieces[1])))
        return Parts(header: header, claims: claims, signingInput: Array("\(pieces[0]).\(pieces[1])".utf8),
                     signature: try #require(Base64URL.decode(pieces[2])))
    }

    @Test func tokenHasTheHeaderClaimsAndAJOSESignatureThePublicKeyVerifies() throws {
        let key = try APNsFixtures.signingKey()
        let source = APNsProviderTokenSource(key: key, clock: ManualClock(APNsFixtures.start))
        let token = try source.current()
        let parts = try parts(token.jwt)
        #expect(JSONWriter.string(parts.header, style: .compact) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(JSONWriter.string(parts.claims, style: .compact) == #"{"iss":"TEAM123456","iat":1796000000}"#)
        #expect(parts.signature.count == 64)  // R ‖ S, not DER
        #expect(ES256.isValidSignature(parts.signature, for: parts.signingInput, publicKey: key.privateKey.publicKey))
        // A changed claim or a flipped signature bit is refused: the check can fail.
        #expect(!ES256.isValidSignature(parts.signature, for: parts.signingInput + [0x20], publicKey: key.privateKey.publicKey))
        var flipped = parts.signature
        flipped[10] ^= 1
        #expect(!ES256.isValidSignature(flipped, for: parts.signingInput, publicKey: key.privateKey.publicKey))
        let otherKey = try ECPrivateKey(p256Scalar: [UInt8](repeating: 0x22, count: 32))
        #expect(!ES256.isValidSignature(parts.signature, for: parts.signingInput, publicKey: otherKey.publicKey))
    }

    @Test func joseAndDERSignaturesConvertBothWays() throws {
        // r with a high bit (needs a 0x00 pad in DER), s with leading zeros (shorter in DER).
        let r = [UInt8](repeating: 0x80, count: 32)
        let s = [UInt8](repeating: 0, count: 3) + [UInt8](repeating: 0x01, count: 29)
        let der = try #require(ES256.derSignature(fromJOSE: r + s))
        #expect(der == [0x30, 0x42, 0x02, 0x21, 0x00] + r + [0x02, 0x1D] + s.dropFirst(3))
        #expect(ES256.joseSignature(fromDER: der) == r + s)
        #expect(ES256.derSignature(fromJOSE: [UInt8](repeating: 1, count: 63)) == nil)
        #expect(ES256.joseSignature(fromDER: der + [0]) == nil)
        #expect(ES256.joseSignature(fromDER: Array(der.dropLast())) == nil)
    }

    @Test func oneTokenIsReusedUntilItIs45MinutesOld() throws {
        let clock = ManualClock(APNsFixtures.start)
        let source = APNsProviderTokenSource(key: try APNsFixtures.signingKey(), clock: clock)
        let first = try source.current()
        clock.advance(by: 20 * 60)
        #expect(try source.current() == first)
        clock.advance(by: 24 * 60 + 59)
        #expect(try source.current() == first)
        clock.advance(by: 1)  // 45 minutes: after 20, before 60
        let second = try source.current()
        #expect(second != first)
        #expect(second.issuedAt == APNsFixtures.start.addingTimeInterval(45 * 60))
        #expect(try source.current() == second)
    }

    @Test func anExpiredTokenIsReplacedAtOnceButARefusedFreshTokenIsNot() throws {
        let clock = ManualClock(APNsFixtures.start)
        let source = APNsProviderTokenSource(key: try APNsFixtures.signingKey(), clock: clock)
        let first = try source.current()
        clock.advance(by: 60)
        let replaced = try #require(try source.replace(rejected: first))
        #expect(replaced != first)
        #expect(try source.current() == replaced)
        // Other requests that were refused with the old token get the new one, not another.
        #expect(try source.replace(rejected: first) == replaced)
        // The new token refused too, within 20 minutes: no more tokens (429 would follow).
        clock.advance(by: 19 * 60)
        #expect(try source.replace(rejected: replaced) == nil)
        #expect(try source.current() == replaced)
        // Twenty minutes after the forced refresh, one more is allowed.
        clock.advance(by: 60)
        #expect(try source.replace(rejected: replaced) != nil)
    }

    @Test func aKeyFileReadableByOthersIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("AuthKey.p8")
        try FileManager.default.copyItem(atPath: RepositoryPaths.fixture("apns/AuthKey_TESTKEY123.p8"), toPath: path)
        chmod(path, 0o644)
        #expect { try APNsSigningKey(p8File: path, keyID: "TESTKEY123", teamID: "TEAM123456") } throws: { error in
            let message = (error as? APNsConfigurationError)?.message ?? ""
            return message.contains("mode 644") && message.contains("chmod 600") && !message.contains("PRIVATE KEY")
        }
        chmod(path, 0o600)
        let key = try APNsSigningKey(p8File: path, keyID: "TESTKEY123", teamID: "TEAM123456")
        #expect(key.keyID == "TESTKEY123")
        #expect { try APNsSigningKey(p8File: path, keyID: "short", teamID: "TEAM123456") } throws: { _ in true }
    }
}
