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
