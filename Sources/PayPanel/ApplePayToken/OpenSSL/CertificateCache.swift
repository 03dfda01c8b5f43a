import Synchronization

/// Certificates parsed once per distinct encoding. Apple signs tokens with a few certificates,
/// and parsing one costs OpenSSL 3.0 more than an ECDH (its public key goes through the
/// provider decoders), so token verification looks them up here first.
final class CertificateCache: Sendable {
    static let shared = CertificateCache()

    /// When full the cache is emptied: Apple rotates signing certificates every few years, and
    /// a flood of distinct ones (forged tokens) must not grow memory.
    static let capacity = 64
    private let parsed = Mutex<[[UInt8]: Certificate]>([:])

    /// The certificate with this exact encoding, parsed on first use.
    func certificate(encoded bytes: [UInt8]) throws(KeyMaterialError) -> Certificate {
        if let known = parsed.withLock({ $0[bytes] }) { return known }
        let certificate = try Certificate(derRepresentation: bytes)
        parsed.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll() }
            cache[bytes] = certificate
        }
        return certificate
    }
}
