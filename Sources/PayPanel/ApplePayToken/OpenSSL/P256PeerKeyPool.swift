import Synchronization
internal import COpenSSL

/// Reusable P-256 public keys for the ECDH peer of each EC_v1 token.
///
/// OpenSSL 3 gives every new key its own copy of the curve, which costs about a tenth of an
/// ECDH; pointing an idle key at the next token's point costs only the point check. A key is
/// used by one caller at a time (taken out of the pool, put back afterwards), so changing it
/// is safe; keys that ever fail to take a point are dropped, not put back.
final class P256PeerKeyPool: Sendable {
    static let shared = P256PeerKeyPool()

    /// Enough for every core of a busy server; extra keys are freed instead of kept.
    private static let capacity = 64
    private let idle = Mutex<[PooledKey]>([])

    /// The ECDH shared secret of `privateKey` and the uncompressed P-256 `point`, which OpenSSL
    /// checks is on the curve before use.
    func sharedSecret(privateKey: EVPKey, peerPoint point: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let operation = "reading a P-256 point"
        guard point.count == P256.uncompressedPointByteCount, point.first == 0x04 else {
            throw OpenSSLError(operation: operation, reason: "not a 65-byte uncompressed point")
        }
        let peer: PooledKey
        if let reused = idle.withLock({ $0.popLast() }) {
            peer = reused
        } else {
            peer = try PooledKey()
        }
        guard peer.key.withPointer({ EVP_PKEY_set1_encoded_public_key($0, point, point.count) }) == 1 else {
            throw OpenSSLError.drain(operation)  // `peer` is dropped: its state is unknown
        }
        let secret = try P256.sharedSecret(privateKey: privateKey, peer: peer.key)
        idle.withLock { keys in
            if keys.count < Self.capacity { keys.append(peer) }
        }
        return secret
    }
}

/// A key owned by the pool, lent to one caller at a time.
private final class PooledKey: @unchecked Sendable {
    // Not the immutable sharing EVPKey promises elsewhere: the pool hands this key to one
    // thread at a time, which changes its point; OpenSSL allows that for an unshared key.
    let key: EVPKey

    init() throws(OpenSSLError) {
        key = try P256.copyOfTemplate()
    }
}
