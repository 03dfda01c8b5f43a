internal import COpenSSL

/// Ciphers and digests fetched from OpenSSL's default provider once per process.
///
/// OpenSSL 3 looks an algorithm up in its provider store on every init when given the legacy
/// `EVP_aes_256_gcm()` / `EVP_sha256()` pointers; fetching once and reusing the handle skips
/// that lookup on the per-token path (see "Performance" in the OpenSSL 3 migration guide).
enum FetchedAlgorithms {
    static let aes256GCM = FetchedCipher("AES-256-GCM")
    static let aes128GCM = FetchedCipher("AES-128-GCM")
    static let sha256 = FetchedDigest("SHA256")
}

/// An `EVP_CIPHER` fetched by name. Fetched handles are immutable and may be used from any
/// thread (OpenSSL reference-counts them).
final class FetchedCipher: @unchecked Sendable {
    private let pointer: OpaquePointer

    init(_ name: String) {
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
            // The default provider always has AES-GCM; without it nothing in PayPanel can work.
            fatalError("OpenSSL's default provider has no \(name): \(OpenSSLError.drainQueue() ?? "no reason")")
        }
        pointer = cipher
    }

    deinit {
        EVP_CIPHER_free(pointer)
    }

    /// Runs `body` with the handle, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}

/// An `EVP_MD` fetched by name; immutable and shareable like `FetchedCipher`.
final class FetchedDigest: @unchecked Sendable {
    private let pointer: OpaquePointer

    init(_ name: String) {
        guard let digest = EVP_MD_fetch(nil, name, nil) else {
            fatalError("OpenSSL's default provider has no \(name): \(OpenSSLError.drainQueue() ?? "no reason")")
        }
        pointer = digest
    }

    deinit {
        EVP_MD_free(pointer)
    }

    /// Runs `body` with the handle, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}
