import PayPanel
/// PayPanel's test root, signing chain and merchant identities (fixtures/keys/, embedded in
/// the binary by fixtures/keys/generate.sh) so the demo and `paypanel token … --test-root` work
/// from any directory. TEST keys, public on purpose: never accept them for real money. The
/// product library trusts Apple Root CA - G3 by default and knows nothing of these keys; only
/// what asks for them here (the demo checkout, tests, tooling, `--test-root`) trusts them.
public enum ApplePayTestKeys {
    /// The merchant identifier of the test merchant certificates.
    public static let merchantIdentifier = "merchant.com.sample.ApplePayAction"

    /// The test root (P-384, like Apple Root CA - G3).
    public static let root: Certificate = certificate("root-ca.pem")

    /// The test signing leaf (with Apple's leaf marker), its key and the intermediate.
    public static let signer: TokenSigningIdentity = {
        do throws(KeyMaterialError) {
            return try TokenSigningIdentity(
                certificatePEM: file("signing-leaf.pem"), privateKeyPEM: file("signing-leaf.key"),
                intermediatePEM: file("intermediate-ca.pem"))
        } catch {
            fatalError("the embedded test signing identity is unusable: \(error.message)")
        }
    }()

    /// The EC P-256 merchant identity (EC_v1 tokens).
    public static let ecMerchant: MerchantIdentity = merchant("merchant-ec.pem", "merchant-ec.key")

    /// The RSA 2048 merchant identity (RSA_v1 tokens).
    public static let rsaMerchant: MerchantIdentity = merchant("merchant-rsa.pem", "merchant-rsa.key")

    /// A verifier for tokens sealed with the test chain to the test merchants. Test mode:
    /// sandbox-signed tokens pass too.
    public static func verifier(
        signingTimeWindow: Double = ApplePayTokenVerifier.defaultSigningTimeWindow, checksSigningTime: Bool = true
    ) -> ApplePayTokenVerifier {
        do {
            return try ApplePayTokenVerifier(
                merchants: [ecMerchant, rsaMerchant], trustedRoot: root, signingTimeWindow: signingTimeWindow,
                checksSigningTime: checksSigningTime, acceptsSandbox: true)
        } catch {
            fatalError("the embedded test root is unusable: \(error.message)")
        }
    }

    /// True when `error` refused a token because its chain ends at this test root, which the
    /// verifier did not trust: the token was made with PayPanel's test identity (`token seal`,
    /// the test wallet). Recognised by the intermediate the token carries having been issued,
    /// and signed, by the test root. Only for explaining a refusal; it never makes one pass.
    public static func chainEndsAtTestRoot(_ error: ApplePayTokenError) -> Bool {
        guard case .rootNotTrusted(let intermediate, _) = error else { return false }
        return intermediate.isIssued(by: root)
    }

    // The embedded files are generated from fixtures/keys and checked by a test, so a failure
    // here is a build defect, not a run-time condition.
    package static func file(_ name: String) -> String {
        guard let text = EmbeddedTestKeys.files[name] else { fatalError("\(name) is not embedded; run fixtures/keys/generate.sh") }
        return text + "\n"
    }

    private static func certificate(_ name: String) -> Certificate {
        do {
            return try Certificate(pemRepresentation: file(name))
        } catch {
            fatalError("the embedded \(name) is unusable: \(error.message)")
        }
    }

    private static func merchant(_ certificateName: String, _ keyName: String) -> MerchantIdentity {
        do {
            return try MerchantIdentity(certificatePEM: file(certificateName), privateKeyPEM: file(keyName))
        } catch {
            fatalError("the embedded \(certificateName) / \(keyName) pair is unusable: \(error.message)")
        }
    }
}
