extension String {
    /// `withCString` that keeps the body's typed error (the standard one is `rethrows`, which
    /// widens every error to `any Error`). For C APIs that keep the pointer beyond the call
    /// that receives it, such as OSSL_PARAM arrays and EVP_PKEY_CTX key type names.
    func withCStringTyped<Result, Failure: Error>(_ body: (UnsafePointer<CChar>) throws(Failure) -> Result) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = withCString { pointer in
            Swift.Result { () throws(Failure) in try body(pointer) }
        }
        return try outcome.get()
    }
}
