import Foundation
import Testing
import TestSupport

@testable import PayPanel
import PayPanelDemo

/// Real Apple-signed tokens from ../shared/conformance/applepay (read in place, never copied
/// into the repository): known intermediate values and the exact plaintext. Skipped when this
/// machine does not have them.
@Suite(.enabled(if: ConformanceVector.folder != nil, "../shared/conformance/applepay is not on this machine"))
struct ConformanceVectorTests {
    @Test(arguments: ConformanceVector.names)
    func appleTokenDecryptsToTheExpectedBytesAtItsSigningTime(name: String) throws {
        let vector = try ConformanceVector(name)
        let decrypted = try vector.decryptor().decrypt(vector.token, at: vector.signingTime)
        #expect(decrypted.plaintext == vector.expectedPlaintext)
        #expect(decrypted.plaintextJSON == vector.expected["plaintext"])
        #expect(decrypted.signingTime == vector.signingTime)
    }

    @Test(arguments: ["gala-2021", "basis-theory-ec"])
    func ecVectorsMatchTheKnownPartyVSharedSecretAndKey(name: String) throws {
        let vector = try ConformanceVector(name)
        let merchant = try vector.merchant()
        let intermediate = try #require(vector.expected["intermediate"])
        #expect(merchant.merchantIdentifierHash?.hexString == intermediate["partyV_hex"]?.stringValue)
        if let uid = intermediate["uid"]?.stringValue {
            #expect(merchant.merchantIdentifier == uid)
            #expect(SHA256.hash(uid) == merchant.merchantIdentifierHash)
        }
        let token = try ApplePayPaymentToken(json: vector.token)
        guard case .ec(let key) = merchant.privateKey else { Issue.record("not an EC key"); return }
        let ephemeral = try ECPublicKey(derRepresentation: try #require(token.header.ephemeralPublicKey))
        let sharedSecret = try key.sharedSecret(with: ephemeral)
        #expect(Base64.encode(sharedSecret) == intermediate["shared_secret_b64"]?.stringValue)
        let symmetricKey = TokenKeyDerivation.symmetricKey(sharedSecret: sharedSecret, partyV: try #require(merchant.merchantIdentifierHash))
        #expect(Base64.encode(symmetricKey) == intermediate["symmetric_key_b64"]?.stringValue)
    }

    @Test func rsaVectorUnwrapsTheKnownKey() throws {
        let vector = try ConformanceVector("basis-theory-rsa")
        let token = try ApplePayPaymentToken(json: vector.token)
        guard case .rsa(let key) = try vector.merchant().privateKey else { Issue.record("not an RSA key"); return }
        let unwrapped = try RSAOAEP.decrypt(try #require(token.header.wrappedKey), with: key.key)
        #expect(unwrapped.map(Base64.encode) == vector.expected["intermediate"]?["symmetric_key_b64"]?.stringValue)
    }

    @Test(arguments: ConformanceVector.names)
    func appleTokensAreRefusedOutsideTheirTimeOrUnderTheWrongRoot(name: String) throws {
        let vector = try ConformanceVector(name)
        // A week later: the signing time is stale.
        let later = tokenError { _ = try vector.decryptor().decrypt(vector.token, at: vector.signingTime.addingTimeInterval(7 * 86_400)) }
        #expect(later?.code == "token_signing_time_stale")
        // Today, with time checks off: Apple's leaf certificates have expired.
        let today = tokenError {
            _ = try vector.decryptor(checksTime: false).decrypt(vector.token, at: TokenFixtures.date("2026-11-29T00:00:00Z"))
        }
        #expect(today == .chainInvalid(reason: "certificate has expired", root: try vector.root().subject))
        // The test root is not Apple's.
        let testRoot = tokenError {
            _ = try TokenFixtures.decryptor(merchants: [try vector.merchant()]).decrypt(vector.token, at: vector.signingTime)
        }
        #expect(testRoot?.code == "token_root_not_trusted")
        #expect(testRoot.map(ApplePayTestKeys.chainEndsAtTestRoot) == false, "Apple's chain is not the test chain")
    }

    @Test(arguments: ConformanceVector.names)
    func appleTokensVerifyUnderTheBuiltInRootAsProductionTokens(name: String) throws {
        let vector = try ConformanceVector(name)
        // No root given: the verifier's default is the embedded Apple Root CA - G3.
        let verifier = try ApplePayTokenVerifier(merchants: [try vector.merchant()])
        #expect(verifier.trustedRoot == (try vector.root()))
        let verified = try verifier.verify(vector.token, at: vector.signingTime)
        #expect(verified.environment == .production)
        #expect(verified.signer.commonName?.hasSuffix("-smp-broker-sign_UC4-PROD") == true)
        let decrypted = try ApplePayTokenDecryptor(verifier: verifier).decrypt(verified)
        #expect(decrypted.plaintext == vector.expectedPlaintext)
        #expect(decrypted.environment == .production)
    }

    @Test(arguments: ConformanceVector.names)
    func tamperedAppleTokensAreRefused(name: String) throws {
        let vector = try ConformanceVector(name)
        let prefix = vector.isWholeToken ? "paymentData." : ""
        let data = try #require(try TokenFixtures.string(prefix + "data", in: vector.token))
        let altered = try TokenFixtures.replacing(prefix + "data", with: .string((data.first == "B" ? "C" : "B") + data.dropFirst()), in: vector.token)
        #expect(tokenError { _ = try vector.decryptor().decrypt(altered, at: vector.signingTime) } == .messageDigestMismatch)
    }

    @Test(arguments: ConformanceVector.names)
    func appleSignaturesAreIndefiniteLengthBERAndSplitCleanly(name: String) throws {
        let token = try ApplePayPaymentToken(json: try ConformanceVector(name).token)
        let signature = try token.decodedSignature()
        #expect(signature[1] == 0x80)  // indefinite length, as Apple writes it
        let split = try CMSCertificateSplitter.split(signature)
        #expect(split.certificates.count == 2)
        #expect(split.withoutCertificates.count < signature.count - split.certificates.map(\.count).reduce(0, +) + 16)
    }
}

/// One folder of ../shared/conformance/applepay.
struct ConformanceVector {
    static let folder = RepositoryPaths.shared("conformance/applepay")
    static let names = ["gala-2021", "basis-theory-ec", "basis-theory-rsa"]

    let directory: String
    let token: [UInt8]
    let expected: JSONValue
    let expectedPlaintext: [UInt8]
    let signingTime: Date

    init(_ name: String) throws {
        let folder = try #require(Self.folder)
        directory = folder + "/" + name
        token = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/token.json")))
        expected = try JSONParser().parse(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/expected.json"))))
        expectedPlaintext = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/expected_plaintext.bin")))
        signingTime = try Timestamp.parse(try #require(expected["signing_time"]?.stringValue))
    }

    var isWholeToken: Bool { (try? JSONParser().parse(token))?["paymentData"] != nil }

    func text(_ file: String) throws -> String {
        try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
    }

    func merchant() throws -> MerchantIdentity {
        try MerchantIdentity(certificatePEM: text("certificate.pem"), privateKeyPEM: text("private_key.pem"))
    }

    func root() throws -> Certificate {
        try Certificate(pemRepresentation: String(contentsOfFile: try #require(Self.folder) + "/roots/AppleRootCA-G3.pem", encoding: .utf8))
    }

    func decryptor(checksTime: Bool = true) throws -> ApplePayTokenDecryptor {
        try TokenFixtures.decryptor(merchants: [try merchant()], root: try root(), checksTime: checksTime)
    }
}
