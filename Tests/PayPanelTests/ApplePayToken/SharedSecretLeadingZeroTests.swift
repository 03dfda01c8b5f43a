import Foundation
import Testing

@testable import PayPanel
import PayPanelDemo

/// One EC_v1 token in 256 has an ECDH shared secret whose first byte is zero. Apple's KDF hashes
/// Z as exactly 32 bytes; an implementation that drops the zero derives the wrong key and
/// fails on those tokens only.
@Suite struct SharedSecretLeadingZeroTests {
    /// Private scalars from fixed seeds: the merchant's, and the first ephemeral (seed index
    /// 350) whose shared secret with it starts with 0x00. The expected values were computed
    /// with an independent pure-Python P-256 implementation, not with OpenSSL.
    static let merchantScalar = SHA256.hash("paypanel leading-zero merchant")
    static let ephemeralScalar = SHA256.hash("paypanel leading-zero ephemeral 350")
    static let expectedSharedSecret = "00a8f0c4e453dd8981f5fd00de9920557e3c40aa3dab8924bdee83c77ef6416d"
    /// SHA-256(00000001 ‖ Z ‖ 0D ‖ "id-aes256-GCM" ‖ "Apple" ‖ SHA-256("merchant.com.sample.ApplePayAction")).
    static let expectedKey = "034f9f1b46c8171abff08258909fe843cf1d06d057d4daef722d6d0566eae444"
    /// The same with the leading zero dropped (what a wrong implementation derives).
    static let keyWithoutLeadingZero = "7eda325f915b85a5c316534499597f3e8fd2b7f0e115d906f7b3f7130750b8d1"

    @Test func sharedSecretKeepsItsLeadingZeroByte() throws {
        let merchant = try ECPrivateKey(p256Scalar: Self.merchantScalar)
        let ephemeral = try ECPrivateKey(p256Scalar: Self.ephemeralScalar)
        let merchantSide = try merchant.sharedSecret(with: ephemeral.publicKey)
        let deviceSide = try ephemeral.sharedSecret(with: merchant.publicKey)
        #expect(merchantSide.count == 32)
        #expect(merchantSide.hexString == Self.expectedSharedSecret)
        #expect(deviceSide == merchantSide)
        let partyV = SHA256.hash(ApplePayTestKeys.merchantIdentifier)
        #expect(TokenKeyDerivation.symmetricKey(sharedSecret: merchantSide, partyV: partyV).hexString == Self.expectedKey)
        #expect(Self.expectedKey != Self.keyWithoutLeadingZero)
    }

    @Test func firstLeadingZeroSeedIsTheRecordedOne() throws {
        // The search the constants came from, so they can be re-derived, not just trusted.
        let merchant = try ECPrivateKey(p256Scalar: Self.merchantScalar)
        var found: Int?
        for index in 0..<400 {
            let ephemeral = try ECPrivateKey(p256Scalar: SHA256.hash("paypanel leading-zero ephemeral \(index)"))
            if try merchant.sharedSecret(with: ephemeral.publicKey)[0] == 0 {
                found = index
                break
            }
        }
        #expect(found == 350)
    }

    @Test func tokenWhoseSharedSecretStartsWithZeroDecrypts() throws {
        // Against the fixture merchant: find an ephemeral key whose Z starts with zero, seal
        // with it, decrypt through the normal path.
        guard case .ec(let merchantKey) = ApplePayTestKeys.ecMerchant.privateKey else { Issue.record("not EC"); return }
        var chosen: ECPrivateKey?
        for index in 0..<5000 {
            let candidate = try ECPrivateKey(p256Scalar: SHA256.hash("fixture leading-zero ephemeral \(index)"))
            if try merchantKey.sharedSecret(with: candidate.publicKey)[0] == 0 {
                chosen = candidate
                break
            }
        }
        let ephemeral = try #require(chosen)
        let plaintext = try TokenFixtures.details().plaintextJSON(cryptogram: "AAECAwQFBgcICQoLDA0ODxAREhM=")
        let token = try TokenFixtures.sealer().seal(
            plaintext: TokenFixtures.json(plaintext), to: ApplePayTestKeys.ecMerchant.certificate, version: .ecV1, ephemeralKey: ephemeral)
        let decrypted = try TokenFixtures.decryptor().decrypt(TokenFixtures.json(token), at: TokenFixtures.signingTime)
        #expect(decrypted.dpan.digits == TokenFixtures.dpanDigits)
    }

    @Test func scalarsOutsideTheGroupAreRefused() {
        #expect(throws: KeyMaterialError.self) { _ = try ECPrivateKey(p256Scalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: KeyMaterialError.self) { _ = try ECPrivateKey(p256Scalar: [UInt8](repeating: 0xFF, count: 32)) }
        #expect(throws: KeyMaterialError.self) { _ = try ECPrivateKey(p256Scalar: [1, 2, 3]) }
    }
}
