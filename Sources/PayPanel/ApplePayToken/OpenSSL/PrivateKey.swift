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

    var key: EVPKey {
        switch self {
        case .ec(let ec): ec.key
        case .rsa(let rsa): rsa.key
        }
    }
}

/// A P-256 private key: a merchant's EC_v1 key, the test signing leaf's key, or a token's
/// ephemeral key on the sealing side.
public struct ECPrivateKey: Sendable {
    let key: EVPKey

    init(key: EVPKey) throws(KeyMaterialError) {
        guard key.isEC, key.groupName == P256.groupName else { throw .unsupportedKey(key.kindDescription) }
        self.key = key
    }

    /// Makes the key whose private scalar is the 32 big-endian bytes `scalar` (1 ≤ d < n).
    public init(p256Scalar scalar: [UInt8]) throws(KeyMaterialError) {
        do {
            key = try P256.privateKey(scalar: scalar)
        } catch {
            throw .invalidEncoding(what: "P-256 private scalar", reason: error.reason)
        }
    }

    /// A new key from `random` (rejection sampling: candidates outside 1..<n are drawn again).
    public static func generateP256(using random: any RandomByteSource) -> ECPrivateKey {
        // A 32-byte candidate is out of range with probability < 2^-32: a hundred misses in a
        // row mean the source is broken (all zeros, say), which must not pass silently.
        for _ in 0..<100 {
            if let key = try? ECPrivateKey(p256Scalar: random.bytes(P256.byteCount)) { return key }
        }
        fatalError("the random source keeps returning bytes that are not a P-256 scalar")
    }

    /// The public half.
    public var publicKey: ECPublicKey {
        // Re-importing the point of a valid P-256 key cannot fail short of memory exhaustion.
        guard let point = try? P256.uncompressedPoint(of: key), let publicKey = try? P256.publicKey(uncompressedPoint: point) else {
            fatalError("reading the public half of a P-256 key failed: \(OpenSSLError.drainQueue() ?? "no reason")")
        }
        return ECPublicKey(key: publicKey)
    }

    /// ECDH: the 32-byte x coordinate of the shared point (leading zero bytes kept).
    public func sharedSecret(with peer: ECPublicKey) throws(OpenSSLError) -> [UInt8] {
        try P256.sharedSecret(privateKey: key, peer: peer.key)
    }
}

/// A P-256 public key: an EC_v1 token's ephemeral key.
public struct ECPublicKey: Sendable {
    let key: EVPKey

    /// Parses a DER SubjectPublicKeyInfo holding a P-256 point on the curve. The usual
    /// uncompressed encoding takes a fast path; anything else goes through OpenSSL's decoder.
    public init(derRepresentation der: some Collection<UInt8>) throws(KeyMaterialError) {
        let bytes = Array(der)
        do {
            if bytes.count == P256.subjectPublicKeyInfoPrefix.count + P256.uncompressedPointByteCount,
                bytes.starts(with: P256.subjectPublicKeyInfoPrefix)
            {
                key = try P256.publicKey(uncompressedPoint: Array(bytes[P256.subjectPublicKeyInfoPrefix.count...]))
            } else {
                let decoded = try EVPKey.publicKey(subjectPublicKeyInfoDER: bytes)
                try P256.checkPublicKey(decoded)
                key = decoded
            }
        } catch {
            throw .invalidEncoding(what: "P-256 public key", reason: error.reason)
        }
    }

    init(key: EVPKey) {
        self.key = key
    }

    /// The DER SubjectPublicKeyInfo (what an EC_v1 header's `ephemeralPublicKey` holds): the
    /// fixed P-256 header and the uncompressed point. Built by hand because OpenSSL 3.0's
    /// generic encoder costs more than two ECDH operations.
    public var derRepresentation: [UInt8] {
        guard let point = try? P256.uncompressedPoint(of: key) else {
            fatalError("encoding a P-256 public key failed: \(OpenSSLError.drainQueue() ?? "no reason")")
        }
        return P256.subjectPublicKeyInfoPrefix + point
    }
}

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
