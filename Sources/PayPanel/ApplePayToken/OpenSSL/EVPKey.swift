internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY` (public, or private and public) and frees it on deinit.
///
/// Sendable because it is never modified after init: OpenSSL 3 lets any number of threads use
/// one `EVP_PKEY` at once for signing, verifying, deriving and decrypting as long as nobody
/// changes it. Each operation gets its own `PKeyContext`.
package final class EVPKey: @unchecked Sendable {
    /// Reached from outside only through `withPointer`, so the key cannot be freed while C
    /// holds its pointer (a bare `key.pointer` may be the key's last use).
    private let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Runs `body` with the `EVP_PKEY`, which stays alive until `body` returns. The pointer
    /// must not outlive `body` (C calls that keep the key take their own reference).
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }

    package var isEC: Bool { EVP_PKEY_is_a(pointer, "EC") == 1 }
    package var isRSA: Bool { EVP_PKEY_is_a(pointer, "RSA") == 1 }
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// The curve of an EC key as OpenSSL names it ("prime256v1"); nil for other keys.
    package var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else {
            OpenSSLError.drainQueue()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "an EC key on prime256v1", "a 2048-bit RSA key": for messages.
    package var kindDescription: String {
        if isEC { return "an EC key on \(groupName ?? "an unnamed curve")" }
        if isRSA { return "a \(bits)-bit RSA key" }
        return "a \(EVP_PKEY_get0_type_name(pointer).map { String(cString: $0) } ?? "unknown") key"
    }

    /// True when both keys have the same public half (a private key and its certificate).
    package func hasSamePublicKey(as other: EVPKey) -> Bool {
        let equal = other.withPointer { EVP_PKEY_eq(pointer, $0) } == 1
        OpenSSLError.drainQueue()  // EVP_PKEY_eq queues an error for keys of different types
        return equal
    }

    /// A fresh operation context for this key.
    func makeContext(_ operation: @autoclosure () -> String) throws(OpenSSLError) -> PKeyContext {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw OpenSSLError.drain(operation())
        }
        return PKeyContext(taking: context)
    }

    /// Parses a DER SubjectPublicKeyInfo (any key type).
    static func publicKey(subjectPublicKeyInfoDER der: some Collection<UInt8>) throws(OpenSSLError) -> EVPKey {
        let pointer = try DERCoding.decode(der, "reading a public key", free: { EVP_PKEY_free($0) }) {
            d2i_PUBKEY(nil, $0, $1)
        }
        return EVPKey(taking: pointer)
    }

    /// Parses a DER private key: SEC1 `ECPrivateKey`, PKCS#1 `RSAPrivateKey` or PKCS#8
    /// `PrivateKeyInfo` (OpenSSL tells them apart by their structure).
    static func privateKey(der: some Collection<UInt8>) throws(OpenSSLError) -> EVPKey {
        let pointer = try DERCoding.decode(der, "reading a private key", free: { EVP_PKEY_free($0) }) {
            d2i_AutoPrivateKey(nil, $0, $1)
        }
        return EVPKey(taking: pointer)
    }
}

/// Owns one `EVP_PKEY_CTX`: the state of a single derive, encrypt, decrypt or sign operation.
/// Not shared between threads.
final class PKeyContext {
    private let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_CTX_free(pointer)
    }

    /// Runs `body` with the `EVP_PKEY_CTX`, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}
