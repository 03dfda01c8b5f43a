import Foundation
import Testing

@testable import PayPanel
import PayPanelDemo

/// Seal → verify → decrypt, both versions, both token shapes: the path the demo and the
/// payments flow run.
@Suite struct TokenRoundTripTests {
    @Test(arguments: PaymentTokenVersion.allCases)
    func sealedTokenVerifiesAndDecryptsToWhatWasSealed(version: PaymentTokenVersion) throws {
        let recipient = (version == .ecV1 ? ApplePayTestKeys.ecMerchant : ApplePayTestKeys.rsaMerchant).certificate
        let sealed = try TokenFixtures.sealer().seal(
            try TokenFixtures.details(amount: 2000, eci: "05", holder: "Ada Lovelace"), to: recipient, version: version)
        let decrypted = try TokenFixtures.decryptor().decrypt(TokenFixtures.json(sealed.paymentTokenJSON), at: TokenFixtures.signingTime)

        #expect(decrypted.version == version)
        #expect(decrypted.dpan.digits == TokenFixtures.dpanDigits)
        #expect(decrypted.expiry.description == "12/29")
        #expect(decrypted.amount == Amount(minorUnits: 2000, currency: try Currency(code: "USD")))
        #expect(decrypted.eci == "05")
        #expect(decrypted.cardholderName == "Ada Lovelace")
        #expect(decrypted.paymentDataType == .threeDSecure)
        #expect(decrypted.cryptogram.map { Base64.decode($0.value)?.count } == 20)
        #expect(decrypted.transactionId == sealed.token.header.transactionId)
        #expect(decrypted.merchantIdentifier == ApplePayTestKeys.merchantIdentifier)
        #expect(decrypted.signingTime == TokenFixtures.signingTime)
        #expect(decrypted.plaintextJSON["applicationExpirationDate"]?.stringValue == "291231")
        #expect(decrypted.plaintextJSON["currencyCode"]?.stringValue == "840")
    }

    @Test func bareEncryptedPaymentDataIsAcceptedLikeAWholePaymentToken() throws {
        let sealed = try TokenFixtures.sealer().seal(try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate)
        let bare = try TokenFixtures.decryptor().decrypt(TokenFixtures.json(sealed.paymentDataJSON), at: TokenFixtures.signingTime)
        let whole = try TokenFixtures.decryptor().decrypt(TokenFixtures.json(sealed.paymentTokenJSON), at: TokenFixtures.signingTime)
        #expect(bare.plaintext == whole.plaintext)
        let parsed = try ApplePayPaymentToken(json: TokenFixtures.json(sealed.paymentTokenJSON))
        #expect(parsed.paymentMethod == .init(displayName: "Visa 4242", network: "Visa", type: "debit"))
    }

    @Test func applicationDataIsSignedWithTheToken() throws {
        let hash = SHA256.hash("order-42")
        let sealed = try TokenFixtures.sealer().seal(
            try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate, applicationData: hash)
        let bytes = TokenFixtures.json(sealed.paymentDataJSON)
        _ = try TokenFixtures.decryptor().decrypt(bytes, at: TokenFixtures.signingTime)

        let altered = try TokenFixtures.replacing("header.applicationData", with: .string(SHA256.hash("order-43").hexString), in: bytes)
        let error = tokenError { _ = try TokenFixtures.decryptor().decrypt(altered, at: TokenFixtures.signingTime) }
        #expect(error == .messageDigestMismatch)
    }

    @Test func paymentMethodDataCarriesTheNetworkTokenForTheProcessor() throws {
        let decrypted = try TokenFixtures.decryptor().decrypt(try TokenFixtures.sealedJSON(), at: TokenFixtures.signingTime)
        guard case .networkToken(let dpan, let expiry, let cryptogram, let eci, _) = try decrypted.paymentMethodData() else {
            Issue.record("not a network token")
            return
        }
        #expect(dpan.digits == TokenFixtures.dpanDigits)
        #expect(expiry.description == "12/29")
        #expect(cryptogram == decrypted.cryptogram)
        #expect(eci == "05")
    }

    @Test func decryptedTokenNeverPrintsTheAccountNumberOrCryptogram() throws {
        let decrypted = try TokenFixtures.decryptor().decrypt(try TokenFixtures.sealedJSON(), at: TokenFixtures.signingTime)
        let cryptogram = try #require(decrypted.cryptogram?.value)
        var dumped = ""
        dump(decrypted, to: &dumped)
        for text in ["\(decrypted)", String(reflecting: decrypted), dumped] {
            #expect(!text.contains(TokenFixtures.dpanDigits))
            #expect(!text.contains(cryptogram))
            #expect(text.contains("4242"))
        }
    }

    @Test func sealingIsRepeatableWithASeededRandomSource() throws {
        let first = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON(seed: "same"))
        let second = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON(seed: "same"))
        let other = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON(seed: "other"))
        // Same ephemeral key, transactionId and cryptogram; the ECDSA signature still differs.
        #expect(first.header.transactionId == second.header.transactionId)
        #expect(first.header.ephemeralPublicKey == second.header.ephemeralPublicKey)
        #expect(first.data == second.data)
        #expect(first.header.transactionId != other.header.transactionId)
    }

    @Test func sealingRefusesAMerchantCertificateOfTheWrongKind() throws {
        let sealer = TokenFixtures.sealer()
        #expect(throws: TokenSealingError.self) {
            _ = try sealer.seal(try TokenFixtures.details(), to: ApplePayTestKeys.rsaMerchant.certificate, version: .ecV1)
        }
        #expect(throws: TokenSealingError.self) {
            _ = try sealer.seal(try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate, version: .rsaV1)
        }
        // The root has no merchant identifier extension, so EC_v1 has no partyV.
        #expect(throws: TokenSealingError.self) {
            _ = try sealer.seal(try TokenFixtures.details(), to: try TokenFixtures.certificate("signing-leaf.pem"), version: .ecV1)
        }
    }
}
