import Foundation
import Testing
import TestSupport

@testable import PayPanel
import PayPanelDemo

/// Reading merchant keys and certificates in the forms people have them.
@Suite struct MerchantKeyTests {
    @Test(arguments: ["merchant-ec.key", "merchant-ec.sec1.key", "merchant-ec.pkcs8.key"])
    func ecKeyFormatsAllReadAsTheSameKey(file: String) throws {
        let merchant = try TokenFixtures.merchant("merchant-ec.pem", file)
        #expect(merchant.tokenVersion == .ecV1)
        #expect(merchant.publicKeyHash == ApplePayTestKeys.ecMerchant.publicKeyHash)
        let decrypted = try TokenFixtures.decryptor(merchants: [merchant]).decrypt(try TokenFixtures.sealedJSON(), at: TokenFixtures.signingTime)
        #expect(decrypted.dpan.last4 == "4242")
    }

    @Test(arguments: ["merchant-rsa.key", "merchant-rsa.pkcs1.key"])
    func rsaKeyFormatsAllReadAsTheSameKey(file: String) throws {
        let merchant = try TokenFixtures.merchant("merchant-rsa.pem", file)
        #expect(merchant.tokenVersion == .rsaV1)
        let decrypted = try TokenFixtures.decryptor(merchants: [merchant])
            .decrypt(try TokenFixtures.sealedJSON(version: .rsaV1), at: TokenFixtures.signingTime)
        #expect(decrypted.version == .rsaV1)
    }

    @Test func textAroundThePEMBlocksIsIgnored() throws {
        let key = "Bag Attributes\n    localKeyID: 01 02 03\nKey Attributes: <No Attributes>\n"
            + (try TokenFixtures.fixtureText("merchant-ec.pkcs8.key")) + "\ntrailing notes\r\n"
        let certificate = "subject=UID = merchant.com.sample.ApplePayAction\r\n" + (try TokenFixtures.fixtureText("merchant-ec.pem"))
        let merchant = try MerchantIdentity(certificatePEM: certificate, privateKeyPEM: key)
        #expect(merchant.publicKeyHash == ApplePayTestKeys.ecMerchant.publicKeyHash)
    }

    @Test func publicKeyHashAndPartyVComeFromTheCertificate() throws {
        let merchant = ApplePayTestKeys.ecMerchant
        #expect(merchant.publicKeyHash == SHA256.hash(try merchant.certificate.subjectPublicKeyInfoDER))
        #expect(merchant.merchantIdentifierHash == SHA256.hash("merchant.com.sample.ApplePayAction"))
        #expect(merchant.merchantIdentifier == "merchant.com.sample.ApplePayAction")
        #expect(merchant.certificate.subject.hasPrefix("UID=merchant.com.sample.ApplePayAction, CN=Apple Pay Payment Processing"))
    }

    @Test func keyOfAnotherCertificateIsRefused() throws {
        #expect(throws: KeyMaterialError.keyDoesNotMatchCertificate(certificate: ApplePayTestKeys.ecMerchant.certificate.subject)) {
            _ = try TokenFixtures.merchant("merchant-ec.pem", "merchant-ec-rotated.key")
        }
        #expect(throws: KeyMaterialError.self) { _ = try TokenFixtures.merchant("merchant-ec.pem", "merchant-rsa.key") }
    }

    @Test func ecCertificateWithoutTheMerchantIdentifierIsRefused() throws {
        #expect(throws: KeyMaterialError.missingMerchantIdentifier(certificate: ApplePayTestKeys.signer.certificate.subject)) {
            _ = try TokenFixtures.merchant("signing-leaf.pem", "signing-leaf.key")
        }
    }

    @Test func keysApplePayDoesNotUseAreRefused() throws {
        // The test root's key is P-384.
        let p384 = tokenMaterialError { _ = try PrivateKey(pemRepresentation: TokenFixtures.fixtureText("root-ca.key")) }
        #expect(p384 == .unsupportedKey("an EC key on secp384r1"))
        #expect(p384?.message.contains("P-256") == true)
    }

    @Test func unreadableKeyFilesSayWhy() throws {
        #expect(throws: KeyMaterialError.noPEMBlock(expected: PrivateKey.pemLabels, found: ["CERTIFICATE"])) {
            _ = try PrivateKey(pemRepresentation: TokenFixtures.fixtureText("merchant-ec.pem"))
        }
        #expect(throws: KeyMaterialError.encryptedPrivateKey) {
            _ = try PrivateKey(pemRepresentation: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n")
        }
        #expect(throws: KeyMaterialError.encryptedPrivateKey) {
            _ = try PrivateKey(pemRepresentation: "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nMIIB\n-----END RSA PRIVATE KEY-----\n")
        }
        let garbled = tokenMaterialError { _ = try PrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(garbled?.code == "key_material_invalid")
        let unterminated = tokenMaterialError { _ = try PrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\nAAAA\n") }
        #expect(unterminated?.code == "key_material_invalid")
    }

    @Test func certificatesReadFromPEMOrDER() throws {
        let pem = try TokenFixtures.fixtureText("root-ca.pem")
        let fromPEM = try Certificate(fileContents: Array(pem.utf8))
        let fromDER = try Certificate(fileContents: fromPEM.derRepresentation)
        #expect(fromPEM == fromDER)
        #expect(fromPEM.commonName == "PayPanel Test Root CA - G3")
        #expect(fromPEM.notBefore == TokenFixtures.date("2020-01-01T00:00:00Z"))
        #expect(fromPEM.notAfter == TokenFixtures.date("2120-01-01T00:00:00Z"))
        #expect(throws: KeyMaterialError.self) { _ = try Certificate(derRepresentation: fromPEM.derRepresentation + [0]) }
    }

    @Test(.enabled(if: RepositoryPaths.shared("conformance/applepay/roots/AppleRootCA-G3.der") != nil, "../shared/conformance/applepay is not on this machine"))
    func appleRootAsDownloadedFromAppleIsRead() throws {
        let path = try #require(RepositoryPaths.shared("conformance/applepay/roots/AppleRootCA-G3.der"))
        let root = try Certificate(fileContents: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(root.commonName == "Apple Root CA - G3")
        #expect(root.sha256Fingerprint.hexString.hasPrefix("63343abf"))
    }
}

func tokenMaterialError(_ body: () throws -> Void) -> KeyMaterialError? {
    do {
        try body()
        return nil
    } catch let error as KeyMaterialError {
        return error
    } catch {
        return nil
    }
}
