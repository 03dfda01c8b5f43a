import PayPanel
/// The certificates and key that sign tokens on the device side: a leaf with Apple's leaf
/// marker, its private key, and the intermediate that issued it. Apple's are on Apple's
/// servers; PayPanel's test chain is in fixtures/keys/ (and embedded, see `ApplePayTestKeys`).
public struct TokenSigningIdentity: Sendable {
    public let certificate: Certificate
    public let privateKey: PrivateKey
    public let intermediate: Certificate

    /// Checks that the key belongs to the leaf certificate.
    public init(certificate: Certificate, privateKey: PrivateKey, intermediate: Certificate) throws(KeyMaterialError) {
        let certificateKey: EVPKey
        do {
            certificateKey = try certificate.publicKey
        } catch {
            throw .invalidEncoding(what: "signing certificate's public key", reason: error.reason)
        }
        guard certificateKey.hasSamePublicKey(as: privateKey.key) else {
            throw .keyDoesNotMatchCertificate(certificate: certificate.subject)
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.intermediate = intermediate
    }

    /// Reads the three from PEM texts.
    public init(certificatePEM: String, privateKeyPEM: String, intermediatePEM: String) throws(KeyMaterialError) {
        try self.init(
            certificate: Certificate(pemRepresentation: certificatePEM), privateKey: PrivateKey(pemRepresentation: privateKeyPEM),
            intermediate: Certificate(pemRepresentation: intermediatePEM))
    }

    /// The file names `TokenSigningIdentity` uses in a signer directory such as fixtures/keys/.
    public static let certificateFileName = "signing-leaf.pem"
    public static let privateKeyFileName = "signing-leaf.key"
    public static let intermediateFileName = "intermediate-ca.pem"
}
