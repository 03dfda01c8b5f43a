/// An RSA private key of at least 2048 bits: a merchant's RSA_v1 key.
public struct RSAPrivateKey: Sendable {
    let key: EVPKey

    static let minimumBits = 2048

    init(key: EVPKey) throws(KeyMaterialError) {
        guard key.isRSA, key.bits >= RSAPrivateKey.minimumBits else { throw .unsupportedKey(key.kindDescription) }
        self.key = key
    }

    /// Size of the modulus in bits.
    public var bits: Int { key.bits }
}
