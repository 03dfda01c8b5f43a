import PayPanel
/// PayPanel's test root, signing chain and merchant identities (fixtures/keys/, embedded in
/// the binary by fixtures/keys/generate.sh) so the demo and `paypanel token …` work from any
/// directory with no options. TEST keys, public on purpose: never accept them for real money.
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

    /// A verifier for tokens sealed with the test chain to the test merchants.
    public static func verifier(
        signingTimeWindow: Double = ApplePayTokenVerifier.defaultSigningTimeWindow, checksSigningTime: Bool = true
    ) -> ApplePayTokenVerifier {
        do {
            return try ApplePayTokenVerifier(
                merchants: [ecMerchant, rsaMerchant], trustedRoot: root, signingTimeWindow: signingTimeWindow,
                checksSigningTime: checksSigningTime)
        } catch {
            fatalError("the embedded test root is unusable: \(error.message)")
        }
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
