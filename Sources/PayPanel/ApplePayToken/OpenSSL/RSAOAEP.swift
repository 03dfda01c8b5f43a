internal import COpenSSL

/// RSA-OAEP with SHA-256 and MGF1-SHA-256: how RSA_v1 tokens wrap their AES-128 key
/// (Apple: "RSA/ECB/OAEPWithSHA256AndMGF1Padding").
package enum RSAOAEP {
    /// Unwraps `ciphertext` with the private key; nil when it does not decrypt. One outcome for
    /// every padding failure, so callers cannot become a padding oracle.
    static func decrypt(_ ciphertext: [UInt8], with key: EVPKey) throws(OpenSSLError) -> [UInt8]? {
        let context = try key.makeContext("starting RSA-OAEP decryption")
        return try context.withPointer { (context) throws(OpenSSLError) -> [UInt8]? in
            try EVP_PKEY_decrypt_init(context).check("starting RSA-OAEP decryption")
            try configure(context, "starting RSA-OAEP decryption")
            var length = 0
            guard EVP_PKEY_decrypt(context, nil, &length, ciphertext, ciphertext.count) == 1 else {
                OpenSSLError.drainQueue()
                return nil
            }
            var plaintext = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_decrypt(context, &plaintext, &length, ciphertext, ciphertext.count) == 1 else {
                OpenSSLError.drainQueue()
                return nil
            }
            return Array(plaintext.prefix(length))
        }
    }

    /// Wraps `plaintext` for the public key (the device side of RSA_v1).
    package static func encrypt(_ plaintext: [UInt8], to key: EVPKey) throws(OpenSSLError) -> [UInt8] {
        let operation = "encrypting with RSA-OAEP"
        let context = try key.makeContext(operation)
        return try context.withPointer { (context) throws(OpenSSLError) -> [UInt8] in
            try EVP_PKEY_encrypt_init(context).check(operation)
            try configure(context, operation)
            var length = 0
            try EVP_PKEY_encrypt(context, nil, &length, plaintext, plaintext.count).check(operation)
            var ciphertext = [UInt8](repeating: 0, count: length)
            try EVP_PKEY_encrypt(context, &ciphertext, &length, plaintext, plaintext.count).check(operation)
            return Array(ciphertext.prefix(length))
        }
    }

    /// `context` is borrowed from its `PKeyContext` for the duration of the call.
    private static func configure(_ context: OpaquePointer, _ operation: String) throws(OpenSSLError) {
        try paypanel_EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING).check(operation)
        try FetchedAlgorithms.sha256.withPointer { EVP_PKEY_CTX_set_rsa_oaep_md(context, $0) }.check(operation)
        try FetchedAlgorithms.sha256.withPointer { EVP_PKEY_CTX_set_rsa_mgf1_md(context, $0) }.check(operation)
    }
}
