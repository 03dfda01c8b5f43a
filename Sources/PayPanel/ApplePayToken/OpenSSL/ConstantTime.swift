internal import COpenSSL

/// Comparisons whose running time does not depend on where the inputs differ.
enum ConstantTime {
    /// True when `a` and `b` have the same length and bytes (CRYPTO_memcmp). The length itself
    /// is not secret.
    static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }
}
