/// Why a key or certificate could not be used. Messages name the structure and the problem,
/// never key bytes; the CLI adds which file it was.
public enum KeyMaterialError: PayPanelError, Equatable {
    /// No PEM block with one of the `expected` labels; `found` lists the labels there were.
    case noPEMBlock(expected: [String], found: [String])
    /// A password-protected key: PayPanel reads only unencrypted keys.
    case encryptedPrivateKey
    /// The bytes are not what they claim to be (bad base64, bad DER, trailing bytes).
    case invalidEncoding(what: String, reason: String)
    /// A key of a kind Apple Pay does not use (a P-384 merchant key, a 1024-bit RSA key…).
    case unsupportedKey(String)
    /// The private key does not belong to the certificate it was paired with.
    case keyDoesNotMatchCertificate(certificate: String)
    /// An EC merchant certificate without Apple's merchant identifier extension.
    case missingMerchantIdentifier(certificate: String)
    /// The merchant identifier extension is not a 64-digit hex SHA-256.
    case invalidMerchantIdentifier(certificate: String)

    public var code: String {
        switch self {
        case .noPEMBlock: "pem_block_missing"
        case .encryptedPrivateKey: "private_key_encrypted"
        case .invalidEncoding: "key_material_invalid"
        case .unsupportedKey: "key_unsupported"
        case .keyDoesNotMatchCertificate: "merchant_key_mismatch"
        case .missingMerchantIdentifier: "merchant_identifier_missing"
        case .invalidMerchantIdentifier: "merchant_identifier_invalid"
        }
    }

    public var message: String {
        switch self {
        case .noPEMBlock(let expected, let found):
            let seen = found.isEmpty ? "no PEM blocks at all" : "only " + found.map { "\"\($0)\"" }.joined(separator: ", ")
            return "expected a PEM block labelled \(expected.map { "\"\($0)\"" }.joined(separator: " or ")) but found \(seen)"
        case .encryptedPrivateKey:
            return "the private key is encrypted with a password: export it unencrypted "
                + "(openssl pkey -in KEY -out plain.pem) and keep that file readable by this program only"
        case .invalidEncoding(let what, let reason):
            return "the \(what) cannot be read: \(reason)"
        case .unsupportedKey(let kind):
            return "\(kind) is not an Apple Pay key: merchant keys are EC P-256 (EC_v1) or RSA of at least 2048 bits (RSA_v1)"
        case .keyDoesNotMatchCertificate(let certificate):
            return "the private key does not belong to the certificate \(JSONWriter.quoted(certificate)): "
                + "pair each --merchant-cert with its own --merchant-key, in the same order"
        case .missingMerchantIdentifier(let certificate):
            return "the certificate \(JSONWriter.quoted(certificate)) has no Apple merchant identifier extension "
                + "(1.2.840.113635.100.6.32): use the Apple Pay Payment Processing certificate, not another one"
        case .invalidMerchantIdentifier(let certificate):
            return "the merchant identifier extension (1.2.840.113635.100.6.32) of \(JSONWriter.quoted(certificate)) "
                + "is not a hex SHA-256: the certificate is not an Apple Pay Payment Processing certificate"
        }
    }
}
