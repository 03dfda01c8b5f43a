import Foundation
import Testing

@testable import PayPanel
import PayPanelDemo

/// Every way verification refuses a token, each with its own error.
@Suite struct TokenVerificationErrorTests {
    let at = TokenFixtures.signingTime

    func decryptError(_ bytes: [UInt8], at date: Date? = nil, decryptor: ApplePayTokenDecryptor? = nil) throws -> ApplePayTokenError? {
        let decryptor = try decryptor ?? TokenFixtures.decryptor()
        return tokenError { _ = try decryptor.decrypt(bytes, at: date ?? at) }
    }

    @Test(arguments: [
        ("", "token_malformed_json"),
        ("{\"version\": ", "token_malformed_json"),
        ("[1, 2]", "token_malformed"),
        ("{\"version\": \"EC_v1\"}", "token_malformed"),
        ("{\"paymentData\": 5}", "token_malformed"),
    ])
    func malformedDocumentsAreRefused(text: String, code: String) throws {
        #expect(try decryptError(Array(text.utf8))?.code == code)
    }

    @Test func missingAndMistypedFieldsAreNamed() throws {
        let sealed = try TokenFixtures.sealedJSON()
        let noHeader = try TokenFixtures.replacing("paymentData.header", with: nil, in: sealed)
        #expect(try decryptError(noHeader) == .malformedToken(field: "'paymentData.header'", reason: "is missing"))
        let numericData = try TokenFixtures.replacing("paymentData.data", with: 5, in: sealed)
        #expect(try decryptError(numericData) == .malformedToken(field: "'paymentData.data'", reason: "is a number, not a string"))
        let badTransaction = try TokenFixtures.replacing("paymentData.header.transactionId", with: "xyz", in: sealed)
        #expect(try decryptError(badTransaction)?.code == "token_malformed")
        let shortHash = try TokenFixtures.replacing("paymentData.header.publicKeyHash", with: "AAAA", in: sealed)
        #expect(try decryptError(shortHash)?.code == "token_malformed")
    }

    @Test func publicKeyHashSpelledWithAKelvinSignIsNotPublicKeyHash() throws {
        // "public\u{212A}eyHash" == "publicKeyHash" for Swift's String ==; to the signer and to
        // JSON it is another member, so the token has no publicKeyHash.
        let sealed = try TokenFixtures.sealedJSON()
        let hash = try #require(try TokenFixtures.string("paymentData.header.publicKeyHash", in: sealed))
        let withoutHash = try TokenFixtures.replacing("paymentData.header.publicKeyHash", with: nil, in: sealed)
        let kelvin = try TokenFixtures.replacing("paymentData.header.public\u{212A}eyHash", with: .string(hash), in: withoutHash)
        #expect(String(decoding: kelvin, as: UTF8.self).contains("public\u{212A}eyHash"))
        #expect(try decryptError(kelvin) == .malformedToken(field: "'paymentData.header.publicKeyHash'", reason: "is missing"))
        // Beside the real field it is an extra member (not a duplicate), and the token reads.
        let both = try TokenFixtures.replacing("paymentData.header.public\u{212A}eyHash", with: "AAAA", in: sealed)
        #expect(try TokenFixtures.decryptor().decrypt(both, at: at).amount.minorUnits == 1000)
    }

    @Test(arguments: ["paymentData.data", "paymentData.signature", "paymentData.header.ephemeralPublicKey"])
    func invalidBase64IsRefused(field: String) throws {
        let bytes = try TokenFixtures.replacing(field, with: "not*base64!", in: try TokenFixtures.sealedJSON())
        #expect(try decryptError(bytes) == .invalidBase64(field: "'\(field)'"))
    }

    @Test(arguments: [
        "{}",
        "{\"paymentData\": {}, \"transactionIdentifier\": \"Simulated Identifier\"}",
        "{\"paymentData\": \"\", \"paymentMethod\": {}}",
        "{\"paymentData\": null}",
    ])
    func simulatorTokensAreRecognised(text: String) throws {
        #expect(try decryptError(Array(text.utf8)) == .simulatorToken)
    }

    @Test func unsupportedVersionIsRefused() throws {
        let bytes = try TokenFixtures.replacing("paymentData.version", with: "EC_v2", in: try TokenFixtures.sealedJSON())
        #expect(try decryptError(bytes) == .unsupportedVersion("EC_v2"))
    }

    @Test func tokenForAnotherMerchantCertificateIsRefused() throws {
        let bytes = try TokenFixtures.sealedJSON()
        let onlyRSA = try TokenFixtures.decryptor(merchants: [ApplePayTestKeys.rsaMerchant])
        let error = try decryptError(bytes, decryptor: onlyRSA)
        #expect(error?.code == "token_merchant_key_unknown")
        #expect(error?.message.contains(ApplePayTestKeys.ecMerchant.publicKeyHashBase64) == true)
    }

    @Test func versionThatDoesNotMatchTheNamedKeyIsRefused() throws {
        // An RSA_v1 header naming the EC merchant's certificate.
        var bytes = try TokenFixtures.sealedJSON(version: .rsaV1)
        bytes = try TokenFixtures.replacing(
            "paymentData.header.publicKeyHash", with: .string(ApplePayTestKeys.ecMerchant.publicKeyHashBase64), in: bytes)
        #expect(try decryptError(bytes)?.code == "token_version_key_mismatch")
    }

    @Test func signatureThatIsNotCMSIsRefused() throws {
        let junk = Base64.encode(SeededRandomBytes(seed: "junk").bytes(200))
        let bytes = try TokenFixtures.replacing("paymentData.signature", with: .string(junk), in: try TokenFixtures.sealedJSON())
        #expect(try decryptError(bytes)?.code == "token_signature_malformed")
    }

    @Test func signatureWithoutTheIntermediateIsRefused() throws {
        // The "intermediate" handed to the signer is the root, which did not issue the leaf.
        let signer = try TokenSigningIdentity(
            certificate: ApplePayTestKeys.signer.certificate, privateKey: ApplePayTestKeys.signer.privateKey,
            intermediate: ApplePayTestKeys.root)
        let sealed = try TokenFixtures.sealer(signer: signer).seal(try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate)
        #expect(try decryptError(TokenFixtures.json(sealed.paymentTokenJSON))?.code == "token_signing_certificates_missing")
    }

    @Test func leafWithoutApplesMarkerIsRefused() throws {
        // Signed by the intermediate CA itself: a certificate without the leaf marker.
        let signer = try TokenSigningIdentity(
            certificate: try TokenFixtures.certificate("intermediate-ca.pem"),
            privateKey: try PrivateKey(pemRepresentation: TokenFixtures.fixtureText("intermediate-ca.key")),
            intermediate: ApplePayTestKeys.root)
        let sealed = try TokenFixtures.sealer(signer: signer).seal(try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate)
        #expect(try decryptError(TokenFixtures.json(sealed.paymentTokenJSON))?.code == "token_leaf_marker_missing")
    }

    @Test func intermediateWithoutApplesMarkerIsRefused() throws {
        let signer = try TokenSigningIdentity(
            certificate: try TokenFixtures.certificate("signing-leaf-unmarked-issuer.pem"),
            privateKey: try PrivateKey(pemRepresentation: TokenFixtures.fixtureText("signing-leaf-unmarked-issuer.key")),
            intermediate: try TokenFixtures.certificate("intermediate-ca-unmarked.pem"))
        let sealed = try TokenFixtures.sealer(signer: signer).seal(try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate)
        #expect(try decryptError(TokenFixtures.json(sealed.paymentTokenJSON))?.code == "token_intermediate_marker_missing")
    }

    @Test func chainToAnotherRootIsRefused() throws {
        let otherRoot = try TokenFixtures.decryptor(root: ApplePayTestKeys.ecMerchant.certificate)
        let error = try decryptError(try TokenFixtures.sealedJSON(), decryptor: otherRoot)
        #expect(error?.code == "token_root_not_trusted")
        #expect(error == .rootNotTrusted(intermediate: ApplePayTestKeys.signer.intermediate, pinnedRoot: ApplePayTestKeys.ecMerchant.certificate.subject))
        // It names the pinned root and the one the chain ends at, and no command-line flag (the
        // CLI adds those).
        #expect(error?.message.contains("does not end at the pinned root") == true)
        #expect(error?.message.contains("was issued by \"CN=PayPanel Test Root CA - G3, ") == true)
        #expect(error?.message.contains("which is not trusted") == true)
        #expect(error?.message.contains("--") == false)
    }

    @Test func chainIsCheckedAtTheVerificationTimeNotTheSystemClock() throws {
        // The test chain is valid 2020–2120: a token verified in 2121 fails on the chain even
        // with the signing-time check off (and in 2019, before the chain was valid).
        let decryptor = try TokenFixtures.decryptor(checksTime: false)
        let expired = try decryptError(try TokenFixtures.sealedJSON(), at: TokenFixtures.date("2121-01-01T00:00:00Z"), decryptor: decryptor)
        #expect(expired == .chainInvalid(reason: "certificate has expired", root: ApplePayTestKeys.root.subject))
        let early = try decryptError(try TokenFixtures.sealedJSON(), at: TokenFixtures.date("2019-06-01T00:00:00Z"), decryptor: decryptor)
        #expect(early == .chainInvalid(reason: "certificate is not yet valid", root: ApplePayTestKeys.root.subject))
    }

    @Test func alteredSignatureValueIsRefused() throws {
        // The sealer writes DER, so the signature's last byte is the last byte of the ECDSA
        // value s: flipping it keeps the structure and breaks the signature.
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON())
        var signature = try token.decodedSignature()
        signature[signature.count - 1] ^= 0x01
        let bytes = TokenFixtures.json(
            ApplePayPaymentToken(version: token.version, data: token.data, signature: signature, header: token.header))
        #expect(try decryptError(bytes) == .signatureInvalid)
    }

    @Test(arguments: ["paymentData.data", "paymentData.header.ephemeralPublicKey", "paymentData.header.transactionId"])
    func alteredSignedFieldsBreakTheMessageDigest(field: String) throws {
        let bytes = try TokenFixtures.sealedJSON()
        let original = try #require(try TokenFixtures.string(field, in: bytes))
        // Change the first character to another valid one of the same alphabet.
        let replacement = (original.first == "a" ? "b" : "a") + original.dropFirst()
        let altered = try TokenFixtures.replacing(field, with: .string(replacement), in: bytes)
        #expect(try decryptError(altered) == .messageDigestMismatch)
    }

    @Test func signatureWithoutSigningTimeIsRefusedUnlessTimeChecksAreOff() throws {
        let sealer = TokenFixtures.sealer()
        let token = try ApplePayPaymentToken(json: try TokenFixtures.sealedJSON())
        let bytes = TokenFixtures.json(try sealer.signed(token, signingTime: .omitted))
        #expect(try decryptError(bytes) == .signingTimeMissing)
        let lenient = try TokenFixtures.decryptor(checksTime: false)
        #expect(try lenient.decrypt(bytes, at: at).signingTime == nil)
    }

    @Test func signingTimeMustBeWithinTheWindow() throws {
        let bytes = try TokenFixtures.sealedJSON()
        let decryptor = try TokenFixtures.decryptor()
        // The edges are inside the window.
        _ = try decryptor.decrypt(bytes, at: at.addingTimeInterval(300))
        _ = try decryptor.decrypt(bytes, at: at.addingTimeInterval(-300))
        #expect(try decryptError(bytes, at: at.addingTimeInterval(301))?.code == "token_signing_time_stale")
        #expect(try decryptError(bytes, at: at.addingTimeInterval(-301))?.code == "token_signing_time_in_future")
        let wide = try TokenFixtures.decryptor(window: 3600)
        _ = try wide.decrypt(bytes, at: at.addingTimeInterval(3000))
        let unchecked = try TokenFixtures.decryptor(checksTime: false)
        _ = try unchecked.decrypt(bytes, at: at.addingTimeInterval(86_400 * 365))
    }

    @Test func messagesNeverContainTheAccountNumberOrCryptogram() throws {
        let bytes = try TokenFixtures.sealedJSON()
        let cryptogram = try #require(try TokenFixtures.decryptor().decrypt(bytes, at: at).cryptogram?.value)
        let stale = try #require(try decryptError(bytes, at: at.addingTimeInterval(1000)))
        let data = try #require(try TokenFixtures.string("paymentData.data", in: bytes))
        let altered = try #require(try decryptError(try TokenFixtures.replacing("paymentData.data", with: .string("AAAA" + data.dropFirst(4)), in: bytes)))
        for error in [stale, altered] {
            #expect(!error.message.contains(TokenFixtures.dpanDigits))
            #expect(!error.message.contains(cryptogram))
        }
    }
}
