internal import COpenSSL

/// An OpenSSL memory BIO that collects output (a signature, a printed name), owned by this
/// object and freed with it.
final class MemoryBIO {
    private let pointer: OpaquePointer

    init() throws(OpenSSLError) {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError.drain("creating a memory BIO") }
        pointer = bio
    }

    deinit {
        BIO_free(pointer)
    }

    /// Runs `body` with the `BIO` to write to, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }

    /// Everything written so far.
    var bytes: [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        let length = paypanel_BIO_get_mem_data(pointer, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Runs `body` with a read-only BIO over `bytes`; the BIO must not outlive the call.
    static func withReadOnly<Result, Failure: Error>(
        _ bytes: [UInt8], _ body: (OpaquePointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = (bytes.isEmpty ? [0] : bytes).withUnsafeBytes { buffer in
            // BIO_new_mem_buf makes a read-only BIO (it never writes through the pointer) and
            // fails only when memory runs out, which Swift treats as fatal everywhere else too.
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(bytes.count)) else {
                fatalError("BIO_new_mem_buf failed: out of memory")
            }
            defer { BIO_free(bio) }
            do throws(Failure) {
                return .success(try body(bio))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
