internal import COpenSSL

/// A merchant's (or a test signer's) private key, read from PEM.
public enum PrivateKey: Sendable {
    case ec(ECPrivateKey)
    case rsa(RSAPrivateKey)

    /// The PEM labels of unencrypted private keys: SEC1, PKCS#8 and PKCS#1.
    static let pemLabels = ["EC PRIVATE KEY", "PRIVATE KEY", "RSA PRIVATE KEY"]

    /// Reads the first private key block of a PEM text: SEC1 `EC PRIVATE KEY` (alone or after
    /// an `EC PARAMETERS` block, as `openssl ecparam -genkey` writes it), PKCS#8 `PRIVATE KEY`
    /// or PKCS#1 `RSA PRIVATE KEY`. Text before and between blocks is ignored.
    public init(pemRepresentation text: String) throws(KeyMaterialError) {
        let document = try PEMDocument(text)
        if document.labels.contains("ENCRYPTED PRIVATE KEY") { throw .encryptedPrivateKey }
        guard let block = document.blocks.first(where: { PrivateKey.pemLabels.contains($0.label) }) else {
            throw .noPEMBlock(expected: PrivateKey.pemLabels, found: document.labels)
        }
        let key: EVPKey
        do {
            key = try EVPKey.privateKey(der: block.der)
        } catch {
            throw .invalidEncoding(what: "\(block.label) block", reason: error.reason)
        }
        try self.init(key: key)
    }

    /// Wraps an OpenSSL key: P-256 EC or RSA of at least 2048 bits.
    init(key: EVPKey) throws(KeyMaterialError) {
        if key.isEC {
            self = .ec(try ECPrivateKey(key: key))
        } else if key.isRSA {
            self = .rsa(try RSAPrivateKey(key: key))
        } else {
            throw .unsupportedKey(key.kindDescription)
        }
    }

    package var key: EVPKey {
        switch self {
        case .ec(let ec): ec.key
        case .rsa(let rsa): rsa.key
        }
    }
}
