import Foundation
import Testing

@testable import PayPanel
import PayPanelDemo

/// Failures after a genuine signature: bad keys, bad ciphertext, bad plaintext, replays and
/// amounts. The broken tokens are re-signed with the test chain so they get past verification.
@Suite struct TokenDecryptionErrorTests {
    let at = TokenFixtures.signingTime
    let sealer = TokenFixtures.sealer()

    func resigned(_ token: ApplePayPaymentToken, header: ApplePayPaymentToken.Header? = nil, data: [UInt8]? = nil) throws -> [UInt8] {
        let changed = ApplePayPaymentToken(
            version: token.version, data: data ?? token.data, signature: [], header: header ?? token.header)
        return TokenFixtures.json(try sealer.signed(changed))
    }

    func header(_ header: ApplePayPaymentToken.Header, ephemeralPublicKey: [UInt8]? = nil, wrappedKey: [UInt8]? = nil)
        -> ApplePayPaymentToken.Header
    {
        .init(
            ephemeralPublicKey: ephemeralPublicKey ?? header.ephemeralPublicKey, wrappedKey: wrappedKey ?? header.wrappedKey,
            publicKeyHash: header.publicKeyHash, transactionId: header.transactionId, applicationData: header.applicationData)
    }

    func decrypt(_ bytes: [UInt8]) throws -> DecryptedPaymentToken {
        try TokenFixtures.decryptor().decrypt(bytes, at: at)
    }

    @Test func ephemeralKeyOffTheCurveIsRefused() throws {
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON())
        var key = try #require(token.header.ephemeralPublicKey)
        key[key.count - 1] ^= 0x01  // y no longer matches x
        let bytes = try resigned(token, header: header(token.header, ephemeralPublicKey: key))
        #expect(tokenError { _ = try decrypt(bytes) }?.code == "token_ephemeral_key_invalid")
    }

    @Test func ephemeralKeyOnAnotherCurveIsRefused() throws {
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON())
        // The test root's P-384 key, in the generic decoder's path.
        let p384 = try ApplePayTestKeys.root.subjectPublicKeyInfoDER
        let bytes = try resigned(token, header: header(token.header, ephemeralPublicKey: p384))
        #expect(tokenError { _ = try decrypt(bytes) }?.code == "token_ephemeral_key_invalid")
    }

    @Test(arguments: PaymentTokenVersion.allCases)
    func alteredCiphertextFailsAuthentication(version: PaymentTokenVersion) throws {
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON(version: version))
        var data = token.data
        data[0] ^= 0x80
        #expect(tokenError { _ = try decrypt(try resigned(token, data: data)) } == .decryptionFailed)
        var tag = token.data
        tag[tag.count - 1] ^= 0x01
        #expect(tokenError { _ = try decrypt(try resigned(token, data: tag)) } == .decryptionFailed)
    }

    @Test func alteredWrappedKeyDoesNotUnwrap() throws {
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON(version: .rsaV1))
        var wrapped = try #require(token.header.wrappedKey)
        wrapped[10] ^= 0x01
        let bytes = try resigned(token, header: header(token.header, wrappedKey: wrapped))
        #expect(tokenError { _ = try decrypt(bytes) } == .keyUnwrapFailed)
    }

    @Test(arguments: [
        ("not json", "text"),
        ("[]", "text"),
        (#"{"applicationExpirationDate":"291231"}"#, "'applicationPrimaryAccountNumber'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424241"}"#, "'applicationPrimaryAccountNumber'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291331"}"#, "'applicationExpirationDate'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291231","currencyCode":"USD"}"#, "'currencyCode'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291231","currencyCode":"840","transactionAmount":10.5}"#, "'transactionAmount'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291231","currencyCode":"840","transactionAmount":1000,"deviceManufacturerIdentifier":"0400","paymentDataType":"Other","paymentData":{}}"#, "'paymentDataType'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291231","currencyCode":"840","transactionAmount":1000,"deviceManufacturerIdentifier":"0400","paymentDataType":"3DSecure","paymentData":{}}"#, "'paymentData.onlinePaymentCryptogram'"),
        (#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291231","currencyCode":"840","transactionAmount":1000,"deviceManufacturerIdentifier":"0400","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"AAAA","eciIndicator":"005"}}"#, "'paymentData.eciIndicator'"),
    ])
    func malformedPlaintextNamesTheField(plaintext: String, field: String) throws {
        let token = try sealer.seal(plaintext: Array(plaintext.utf8), to: ApplePayTestKeys.ecMerchant.certificate, version: .ecV1)
        let error = tokenError { _ = try decrypt(TokenFixtures.json(token)) }
        #expect(error?.code == "token_plaintext_malformed")
        if case .plaintextMalformed(let named, _) = error { #expect(named == field) }
        #expect(error?.message.contains("4242424242424242") == false)
    }

    @Test func emvTokensDecryptButAreNotAuthorizedAsNetworkTokens() throws {
        let plaintext = #"{"applicationPrimaryAccountNumber":"6212345678901232","applicationExpirationDate":"291231","currencyCode":"156","transactionAmount":1000,"deviceManufacturerIdentifier":"0400","paymentDataType":"EMV","paymentData":{"emvData":"AAAA","encryptedPINData":"00"}}"#
        let token = try sealer.seal(plaintext: Array(plaintext.utf8), to: ApplePayTestKeys.ecMerchant.certificate, version: .ecV1)
        let decrypted = try decrypt(TokenFixtures.json(token))
        #expect(decrypted.paymentDataType == .emv)
        #expect(decrypted.cryptogram == nil)
        #expect(decrypted.amount.currency.code == "CNY")
        #expect(tokenError { _ = try decrypted.paymentMethodData() } == .paymentDataTypeUnsupported("EMV"))
    }
}
