import Foundation
import Testing
import TestSupport

@testable import PayPanel
import PayPanelDemo

/// What a verifier trusts when nobody says otherwise: Apple Root CA - G3, pinned by its hash,
/// and production tokens only. PayPanel's test root and sandbox tokens pass only when asked for.
@Suite struct TrustDefaultsTests {
    /// A token sealed by `signer` (the test chain unless told) to the EC test merchant.
    func sealed(signer: TokenSigningIdentity = ApplePayTestKeys.signer) throws -> [UInt8] {
        let sealed = try TokenFixtures.sealer(signer: signer).seal(try TokenFixtures.details(), to: ApplePayTestKeys.ecMerchant.certificate)
        return TokenFixtures.json(sealed.paymentTokenJSON)
    }

    /// The test chain's sandbox-named leaf (fixtures/keys/signing-leaf-sandbox.*).
    func sandboxSigner() throws -> TokenSigningIdentity {
        try TokenSigningIdentity(
            certificatePEM: TokenFixtures.fixtureText("signing-leaf-sandbox.pem"),
            privateKeyPEM: TokenFixtures.fixtureText("signing-leaf-sandbox.key"),
            intermediatePEM: TokenFixtures.fixtureText("intermediate-ca.pem"))
    }

    @Test func theEmbeddedAppleRootMatchesItsPinnedHash() {
        let root = ApplePayRoots.appleRootCAG3
        #expect(root.sha256Fingerprint.hexString == ApplePayRoots.appleRootCAG3SHA256)
        #expect(ApplePayRoots.appleRootCAG3SHA256.hasPrefix("63343abf") && ApplePayRoots.appleRootCAG3SHA256.hasSuffix("3e9179"))
        #expect(root.commonName == "Apple Root CA - G3")
        #expect(root.subject == "CN=Apple Root CA - G3, OU=Apple Certification Authority, O=Apple Inc., C=US")
        #expect(root.notAfter == TokenFixtures.date("2039-04-30T18:19:06Z"))
    }

    @Test func aRootWhoseHashIsNotThePinnedOneIsRefused() throws {
        let wrongHash = String(repeating: "0", count: 64)
        #expect(throws: RootPinError.fingerprintMismatch(expected: wrongHash, found: ApplePayRoots.appleRootCAG3SHA256)) {
            try ApplePayRoots.pinned(pem: ApplePayRoots.appleRootCAG3PEM, sha256: wrongHash)
        }
        // Another certificate under Apple's hash: the test root.
        let testRootPEM = try TokenFixtures.fixtureText("root-ca.pem")
        #expect(throws: RootPinError.fingerprintMismatch(
            expected: ApplePayRoots.appleRootCAG3SHA256, found: ApplePayTestKeys.root.sha256Fingerprint.hexString)) {
            try ApplePayRoots.pinned(pem: testRootPEM, sha256: ApplePayRoots.appleRootCAG3SHA256)
        }
        #expect(throws: RootPinError.self) { try ApplePayRoots.pinned(pem: "no certificate here", sha256: ApplePayRoots.appleRootCAG3SHA256) }
    }

    @Test(.enabled(if: RepositoryPaths.shared("conformance/applepay/roots") != nil, "../shared/conformance/applepay is not on this machine"))
    func theEmbeddedAppleRootIsTheOneApplePublishes() throws {
        let folder = try #require(RepositoryPaths.shared("conformance/applepay/roots"))
        for file in ["AppleRootCA-G3.pem", "AppleRootCA-G3.der"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(file)")))
            let certificate = try Certificate(fileContents: bytes)
            #expect(certificate == ApplePayRoots.appleRootCAG3, "\(file)")
            #expect(SHA256.hash(certificate.derRepresentation).hexString == ApplePayRoots.appleRootCAG3SHA256, "\(file)")
        }
    }

    @Test func theProductLibraryCarriesNoTestKeys() throws {
        let sources = RepositoryPaths.root.appending(path: "Sources/PayPanel")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path(percentEncoded: false)))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        let testRootLine = try #require(try TokenFixtures.fixtureText("root-ca.pem").split(separator: "\n").dropFirst().first)
        for file in files {
            let text = try String(contentsOf: sources.appending(path: file), encoding: .utf8)
            #expect(!text.contains(testRootLine), "\(file) holds the test root")
            #expect(!text.contains("PRIVATE KEY-----"), "\(file) holds a private key")
        }
    }

    @Test func aVerifierTrustsAppleRootByDefault() throws {
        let verifier = try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant])
        #expect(verifier.trustedRoot == ApplePayRoots.appleRootCAG3)
        #expect(!verifier.acceptsSandbox)
        // A token made with PayPanel's test identity: its chain ends at the test root.
        let error = tokenError { _ = try verifier.verify(try sealed(), at: TokenFixtures.signingTime) }
        #expect(error == .rootNotTrusted(intermediate: ApplePayTestKeys.signer.intermediate, pinnedRoot: ApplePayRoots.appleRootCAG3.subject))
        #expect(error?.message.contains("--") == false, "library messages name no command-line flags")
    }

    @Test func trustIsSettledBeforeTheMerchantKeyIsLookedUp() throws {
        // No merchant keys at all: a test token is still refused for its chain, not its key.
        let verifier = try ApplePayTokenVerifier(merchants: [])
        #expect(tokenError { _ = try verifier.verify(try sealed(), at: TokenFixtures.signingTime) }?.code == "token_root_not_trusted")
        // Trusted, it gets as far as the merchant key.
        let trusted = try ApplePayTokenVerifier(merchants: [], trustedRoot: ApplePayTestKeys.root)
        #expect(tokenError { _ = try trusted.verify(try sealed(), at: TokenFixtures.signingTime) }?.code == "token_merchant_key_unknown")
    }

    @Test func theTestRootIsRecognisedOnlyWhereItIssuedTheChain() throws {
        let verifier = try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant])
        let refused = try #require(tokenError { _ = try verifier.verify(try sealed(), at: TokenFixtures.signingTime) })
        #expect(ApplePayTestKeys.chainEndsAtTestRoot(refused))
        // Another intermediate the test root did not issue (here Apple's root), or another error.
        let apple = ApplePayTokenError.rootNotTrusted(intermediate: ApplePayRoots.appleRootCAG3, pinnedRoot: "CN=x")
        #expect(!ApplePayTestKeys.chainEndsAtTestRoot(apple))
        #expect(!ApplePayTestKeys.chainEndsAtTestRoot(.chainInvalid(reason: "certificate has expired", root: "CN=x")))
        // Issued by: the name must match and the test root's key must verify the signature.
        #expect(ApplePayTestKeys.signer.intermediate.isIssued(by: ApplePayTestKeys.root))
        #expect(!ApplePayTestKeys.signer.certificate.isIssued(by: ApplePayTestKeys.root))
        #expect(!ApplePayTestKeys.root.isIssued(by: ApplePayRoots.appleRootCAG3))
        #expect(ApplePayTestKeys.signer.intermediate.issuer == ApplePayTestKeys.root.subject)
    }

    @Test func theEnvironmentComesFromTheSigningLeaf() throws {
        #expect(ApplePayEnvironment(signer: ApplePayTestKeys.signer.certificate) == .production)
        #expect(ApplePayEnvironment(signer: try sandboxSigner().certificate) == .sandbox)
        #expect(ApplePayEnvironment(signer: ApplePayRoots.appleRootCAG3) == .production)
        let verified = try ApplePayTestKeys.verifier().verify(try sealed(), at: TokenFixtures.signingTime)
        #expect(verified.environment == .production)
    }

    @Test func sandboxTokensAreRefusedUnlessAccepted() throws {
        let token = try sealed(signer: try sandboxSigner())
        let strict = try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant], trustedRoot: ApplePayTestKeys.root)
        let error = tokenError { _ = try strict.verify(token, at: TokenFixtures.signingTime) }
        let signer = try sandboxSigner().certificate.subject
        #expect(error == .sandboxNotAccepted(signer: signer))
        #expect(error?.code == "token_sandbox_not_accepted")
        #expect(error?.message.contains("sandbox") == true && error?.message.contains("--") == false)

        let lenient = try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant], trustedRoot: ApplePayTestKeys.root, acceptsSandbox: true)
        let verified = try lenient.verify(token, at: TokenFixtures.signingTime)
        #expect(verified.environment == .sandbox)
        let decrypted = try ApplePayTokenDecryptor(verifier: lenient).decrypt(verified)
        #expect(decrypted.environment == .sandbox)
        #expect(decrypted.dpan.last4 == "4242")
        // The test identity's verifier is test mode: sandbox tokens pass.
        #expect(try ApplePayTestKeys.verifier().verify(token, at: TokenFixtures.signingTime).environment == .sandbox)
    }

    @Test func aForgedSandboxTokenIsRefusedForItsChainNotItsEnvironment() throws {
        // The sandbox rule applies to tokens that are otherwise genuine: under Apple's root the
        // test chain's sandbox leaf is refused for its chain first.
        let verifier = try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant], acceptsSandbox: false)
        #expect(tokenError { _ = try verifier.verify(try sealed(signer: try sandboxSigner()), at: TokenFixtures.signingTime) }?.code
            == "token_root_not_trusted")
    }
}
