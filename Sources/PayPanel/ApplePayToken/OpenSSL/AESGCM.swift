internal import COpenSSL

/// AES-GCM as Apple Pay tokens use it: AES-256 (EC_v1) or AES-128 (RSA_v1) by key length, a
/// 16-byte IV of zeros, no additional data, and the 16-byte tag appended to the ciphertext.
///
/// The fixed IV is safe only because every key encrypts exactly one message: EC_v1 derives a
/// fresh key from a fresh ephemeral key pair, RSA_v1 wraps a fresh random key.
package enum AESGCM {
    static let tagByteCount = 16
    static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// Decrypts `ciphertext ‖ tag`; nil when the tag does not authenticate (altered data or the
    /// wrong key). No unauthenticated plaintext ever leaves this function.
    static func open(_ sealed: [UInt8], key: [UInt8]) throws(OpenSSLError) -> [UInt8]? {
        guard sealed.count >= tagByteCount else { return nil }
        let context = try CipherContext(key: key, encrypting: false)
        let ciphertextCount = sealed.count - tagByteCount
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        var tag = Array(sealed[ciphertextCount...])
        var written: Int32 = 0
        var finalCount: Int32 = 0
        let authentic = try context.withPointer { (context) throws(OpenSSLError) -> Bool in
            try plaintext.withUnsafeMutableBufferPointer { output throws(OpenSSLError) in
                try sealed.withUnsafeBufferPointer { input throws(OpenSSLError) in
                    try EVP_DecryptUpdate(context, output.baseAddress, &written, input.baseAddress, Int32(ciphertextCount))
                        .check("decrypting with AES-GCM")
                }
            }
            try EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), &tag)
                .check("setting the AES-GCM tag")
            // GCM is a stream mode: Final writes nothing, it only checks the tag.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch in
                EVP_DecryptFinal_ex(context, scratch.baseAddress, &finalCount) == 1
            }
        }
        guard authentic, Int(written) == ciphertextCount, finalCount == 0 else {
            OpenSSLError.drainQueue()
            // Overwrite what was decrypted before the tag check failed: it is unauthenticated.
            for index in plaintext.indices { plaintext[index] = 0 }
            return nil
        }
        return plaintext
    }

    /// Encrypts and returns `ciphertext ‖ tag`.
    package static func seal(_ plaintext: [UInt8], key: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        let context = try CipherContext(key: key, encrypting: true)
        var output = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        var written: Int32 = 0
        try context.withPointer { (context) throws(OpenSSLError) in
            try output.withUnsafeMutableBufferPointer { buffer throws(OpenSSLError) in
                try plaintext.withUnsafeBufferPointer { input throws(OpenSSLError) in
                    try EVP_EncryptUpdate(context, buffer.baseAddress, &written, input.baseAddress, Int32(plaintext.count))
                        .check("encrypting with AES-GCM")
                }
                var finalCount: Int32 = 0
                try EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &finalCount)
                    .check("finishing AES-GCM encryption")
                try EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), buffer.baseAddress! + plaintext.count)
                    .check("reading the AES-GCM tag")
            }
        }
        return output
    }
}

/// Owns one `EVP_CIPHER_CTX` set up for AES-GCM with Apple's key and zero IV.
///
/// The context is set up while it is still a local: a failed set-up frees the local, and only a
/// context that is ready becomes `pointer`, which `deinit` alone frees.
private final class CipherContext {
    private let pointer: OpaquePointer

    init(key: [UInt8], encrypting: Bool) throws(OpenSSLError) {
        let cipher: FetchedCipher
        switch key.count {
        case 32: cipher = FetchedAlgorithms.aes256GCM
        case 16: cipher = FetchedAlgorithms.aes128GCM
        default: throw OpenSSLError(operation: "setting up AES-GCM", reason: "a \(key.count)-byte key is neither AES-128 nor AES-256")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.drain("creating a cipher context") }
        do throws(OpenSSLError) {
            try Self.start(context, cipher: cipher, key: key, encrypting: encrypting)
        } catch {
            EVP_CIPHER_CTX_free(context)
            throw error
        }
        pointer = context
    }

    /// Sets `context` up for `cipher` with `key` and the zero IV.
    private static func start(_ context: OpaquePointer, cipher: FetchedCipher, key: [UInt8], encrypting: Bool) throws(OpenSSLError) {
        let operation = encrypting ? "starting AES-GCM encryption" : "starting AES-GCM decryption"
        let enc: Int32 = encrypting ? 1 : 0
        try cipher.withPointer { EVP_CipherInit_ex2(context, $0, nil, nil, enc, nil) }.check(operation)
        try EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(AESGCM.zeroIV.count), nil).check(operation)
        try key.withUnsafeBufferPointer { keyBuffer throws(OpenSSLError) in
            try AESGCM.zeroIV.withUnsafeBufferPointer { ivBuffer throws(OpenSSLError) in
                try EVP_CipherInit_ex2(context, nil, keyBuffer.baseAddress, ivBuffer.baseAddress, enc, nil).check(operation)
            }
        }
    }

    deinit {
        // EVP_CIPHER_CTX_free clears the expanded key schedule before freeing it.
        EVP_CIPHER_CTX_free(pointer)
    }

    /// Runs `body` with the `EVP_CIPHER_CTX`, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}
