/// A P-256 private key: a merchant's EC_v1 key, the test signing leaf's key, or a token's
/// ephemeral key on the sealing side.
public struct ECPrivateKey: Sendable {
    package let key: EVPKey

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
