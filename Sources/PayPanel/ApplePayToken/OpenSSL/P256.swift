internal import COpenSSL

/// NIST P-256 (prime256v1), the curve of EC_v1 tokens: key import and ECDH.
package enum P256 {
    package static let groupName = "prime256v1"
    /// Size of a coordinate, a scalar and an ECDH shared secret.
    static let byteCount = 32
    /// `04 ‖ X ‖ Y`.
    static let uncompressedPointByteCount = 65

    /// The DER SubjectPublicKeyInfo header of every uncompressed P-256 public key
    /// (SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (66 bytes) }).
    /// The ephemeral key of an EC_v1 token is this header plus the 65-byte point.
    static let subjectPublicKeyInfoPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
        0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// Imports a public key from its uncompressed point. OpenSSL refuses a point that is not on
    /// the curve, which (P-256 has cofactor 1) is the whole check an ECDH peer needs.
    ///
    /// This is on every token's path, so it copies a template key and sets the point rather than
    /// building a key from parameters: that would rebuild the curve (its Montgomery constants,
    /// a modular inverse) for every token, which costs a fifth of an ECDH.
    static func publicKey(uncompressedPoint point: [UInt8]) throws(OpenSSLError) -> EVPKey {
        let operation = "reading a P-256 point"
        guard point.count == uncompressedPointByteCount, point.first == 0x04 else {
            throw OpenSSLError(operation: operation, reason: "not a 65-byte uncompressed point")
        }
        let key = try copyOfTemplate()
        try key.withPointer { EVP_PKEY_set1_encoded_public_key($0, point, point.count) }.check(operation)
        return key
    }

    /// The 65-byte uncompressed point of a P-256 key (public or private).
    static func uncompressedPoint(of key: EVPKey) throws(OpenSSLError) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: uncompressedPointByteCount)
        var length = 0
        // OpenSSL keeps P-256 points uncompressed unless told otherwise; check rather than assume.
        let read = key.withPointer { EVP_PKEY_get_octet_string_param($0, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &point, point.count, &length) }
        guard read == 1, length == uncompressedPointByteCount, point[0] == 0x04
        else { throw OpenSSLError.drain("reading a P-256 point") }
        return point
    }

    /// A new key with the curve already set up (its point is the generator until changed).
    static func copyOfTemplate() throws(OpenSSLError) -> EVPKey {
        guard let copy = PublicKeyTemplate.key.withPointer({ EVP_PKEY_dup($0) }) else { throw OpenSSLError.drain("copying a P-256 key") }
        return EVPKey(taking: copy)
    }

    /// Builds a public key from parameters (group name and point): the slow, general import.
    static func publicKeyFromParameters(uncompressedPoint point: [UInt8]) throws(OpenSSLError) -> EVPKey {
        let parameters = OwnedParameters()
        parameters.addUTF8String(OSSL_PKEY_PARAM_GROUP_NAME, groupName)
        parameters.addOctetString(OSSL_PKEY_PARAM_PUB_KEY, point)
        return try fromData(parameters, selection: Int32(PAYPANEL_EVP_PKEY_PUBLIC_KEY), operation: "reading a P-256 point")
    }

    /// Makes a key pair from a 32-byte private scalar (1 ≤ d < n). Used to derive ephemeral keys
    /// from an injected random source, and by tests that need a specific key.
    static func privateKey(scalar: [UInt8]) throws(OpenSSLError) -> EVPKey {
        let operation = "making a P-256 key from a scalar"
        guard scalar.count == byteCount else {
            throw OpenSSLError(operation: operation, reason: "a scalar has 32 bytes, not \(scalar.count)")
        }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw OpenSSLError.drain(operation) }
        defer { EC_GROUP_free(group) }
        guard let secret = BN_secure_new() else { throw OpenSSLError.drain(operation) }
        defer { BN_clear_free(secret) }
        guard BN_bin2bn(scalar, Int32(scalar.count), secret) != nil else { throw OpenSSLError.drain(operation) }
        guard BN_is_zero(secret) == 0, let order = EC_GROUP_get0_order(group), BN_cmp(secret, order) < 0 else {
            throw OpenSSLError(operation: operation, reason: "the scalar is 0 or not below the group order")
        }
        guard let point = EC_POINT_new(group) else { throw OpenSSLError.drain(operation) }
        defer { EC_POINT_free(point) }
        try EC_POINT_mul(group, point, secret, nil, nil, nil).check(operation)
        var publicPoint = [UInt8](repeating: 0, count: uncompressedPointByteCount)
        let written = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &publicPoint, publicPoint.count, nil)
        guard written == uncompressedPointByteCount else { throw OpenSSLError.drain(operation) }

        let parameters = OwnedParameters()
        parameters.addUTF8String(OSSL_PKEY_PARAM_GROUP_NAME, groupName)
        parameters.addOctetString(OSSL_PKEY_PARAM_PUB_KEY, publicPoint)
        parameters.addUnsignedInteger(OSSL_PKEY_PARAM_PRIV_KEY, bigEndian: scalar)
        return try fromData(parameters, selection: Int32(PAYPANEL_EVP_PKEY_KEYPAIR), operation: operation)
    }

    /// ECDH: the x coordinate of `privateKey · peer`, always exactly 32 bytes.
    ///
    /// Apple's KDF hashes Z as a fixed 32-byte string, so a Z whose first byte is zero (one
    /// token in 256) must keep that byte; OpenSSL pads Z to the field size and this checks it.
    package static func sharedSecret(privateKey: EVPKey, peer: EVPKey) throws(OpenSSLError) -> [UInt8] {
        let operation = "deriving the ECDH shared secret"
        let context = try privateKey.makeContext(operation)
        return try context.withPointer { (context) throws(OpenSSLError) -> [UInt8] in
            try EVP_PKEY_derive_init(context).check(operation)
            // No second peer check: the peer was imported through `publicKey(uncompressedPoint:)` or
            // checked by `checkPublicKey`, and OpenSSL's check here would repeat a full scalar
            // multiplication (it tests n·Q = ∞, which cofactor 1 makes redundant). The context
            // takes its own reference to the peer.
            try peer.withPointer { EVP_PKEY_derive_set_peer_ex(context, $0, 0) }.check(operation)
            var length = byteCount
            var secret = [UInt8](repeating: 0, count: byteCount)
            try EVP_PKEY_derive(context, &secret, &length).check(operation)
            guard length == byteCount else {
                throw OpenSSLError(operation: operation, reason: "OpenSSL returned \(length) bytes instead of 32")
            }
            return secret
        }
    }

    /// Checks that a public key parsed by OpenSSL's generic decoder is a P-256 point on the curve
    /// (not the point at infinity): what `publicKey(uncompressedPoint:)` guarantees by itself.
    static func checkPublicKey(_ key: EVPKey) throws(OpenSSLError) {
        let operation = "checking a P-256 public key"
        guard key.isEC, key.groupName == groupName else {
            throw OpenSSLError(operation: operation, reason: "\(key.kindDescription), not a P-256 key")
        }
        let context = try key.makeContext(operation)
        try context.withPointer { EVP_PKEY_public_check_quick($0) }.check(operation)
    }

    private static func fromData(
        _ parameters: OwnedParameters, selection: Int32, operation: @autoclosure () -> String
    ) throws(OpenSSLError) -> EVPKey {
        // The context keeps the key type name's pointer: keep it alive for the context's life.
        try "EC".withCStringTyped { keyType throws(OpenSSLError) in
            guard let context = EVP_PKEY_CTX_new_from_name(nil, keyType, nil) else { throw OpenSSLError.drain(operation()) }
            defer { EVP_PKEY_CTX_free(context) }
            try EVP_PKEY_fromdata_init(context).check(operation())
            var key: OpaquePointer?
            try parameters.withParameters { list throws(OpenSSLError) in
                try EVP_PKEY_fromdata(context, &key, selection, list).check(operation())
            }
            guard let key else { throw OpenSSLError.drain(operation()) }
            return EVPKey(taking: key)
        }
    }
}

/// A P-256 public key (the generator point) whose curve is already set up, copied by
/// `P256.publicKey(uncompressedPoint:)`. Immutable, so shared by every thread.
private enum PublicKeyTemplate {
    static let key: EVPKey = {
        // The generator G of P-256 (SEC 2, section 2.4.2), uncompressed.
        let generator = [UInt8](hexString: "04"
            + "6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296"
            + "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5") ?? []
        guard let key = try? P256.publicKeyFromParameters(uncompressedPoint: generator) else {
            fatalError("OpenSSL cannot make a P-256 key: \(OpenSSLError.drainQueue() ?? "no reason")")
        }
        return key
    }()
}
