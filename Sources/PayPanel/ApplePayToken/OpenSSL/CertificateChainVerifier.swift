import Foundation
import Synchronization
internal import COpenSSL

/// Verifies leaf → intermediate → pinned root with OpenSSL's X509_verify_cert at a given time,
/// and remembers the chains that passed.
///
/// Apple signs every token with one of a handful of leaf certificates, so checking each chain
/// once (the P-384 root signature is the expensive part) instead of once per token saves most
/// of the verification cost. A remembered chain is reused only at times inside the validity
/// period shared by its three certificates; outside it the chain is checked again, and fails.
final class CertificateChainVerifier: Sendable {
    let root: Certificate
    private let store: X509StoreHandle
    private let passedChains = Mutex<[ChainKey: ValidityPeriod]>([:])

    /// More distinct chains than Apple has ever used at once; when full the memory is cleared.
    static let capacity = 64

    init(root: Certificate) throws(OpenSSLError) {
        guard let store = X509_STORE_new() else { throw OpenSSLError.drain("creating a certificate store") }
        self.store = X509StoreHandle(taking: store)
        self.root = root
        // The store takes its own reference to the root.
        try self.store.withPointer { store in root.handle.withPointer { X509_STORE_add_cert(store, $0) } }
            .check("adding the pinned root")
    }

    /// Throws with OpenSSL's reason unless `leaf`, issued by `intermediate`, issued by the root,
    /// are all valid at `date`.
    func verify(leaf: Certificate, intermediate: Certificate, at date: Date) throws(ChainVerificationFailure) {
        let key = ChainKey(leaf: leaf.sha256Fingerprint, intermediate: intermediate.sha256Fingerprint)
        if let validity = passedChains.withLock({ $0[key] }), validity.contains(date) { return }
        let validity = try verifyWithOpenSSL(leaf: leaf, intermediate: intermediate, at: date)
        passedChains.withLock { chains in
            if chains.count >= Self.capacity { chains.removeAll() }
            chains[key] = validity
        }
    }

    /// How many chains are remembered (for tests).
    var rememberedChainCount: Int { passedChains.withLock { $0.count } }

    private func verifyWithOpenSSL(leaf: Certificate, intermediate: Certificate, at date: Date) throws(ChainVerificationFailure) -> ValidityPeriod {
        // The verification context borrows the store, the leaf and the untrusted stack (which
        // borrows the intermediate) without taking references, and is freed at the end: keep
        // their owners alive until then.
        try withExtendedLifetime((store, leaf, intermediate)) { () throws(ChainVerificationFailure) -> ValidityPeriod in
            guard let context = X509_STORE_CTX_new(), let untrusted = paypanel_sk_X509_new_null() else {
                throw ChainVerificationFailure(reason: OpenSSLError.drain("creating a verification context").reason)
            }
            defer {
                X509_STORE_CTX_free(context)
                paypanel_sk_X509_free(untrusted)
            }
            guard intermediate.handle.withPointer({ paypanel_sk_X509_push(untrusted, $0) }) > 0,
                store.withPointer({ store in leaf.handle.withPointer { X509_STORE_CTX_init(context, store, $0, untrusted) } }) == 1
            else {
                throw ChainVerificationFailure(reason: OpenSSLError.drain("setting up chain verification").reason)
            }
            // The verification time is the caller's (the token's), never the system clock: expired
            // test vectors verify at their signing time, and tests control time.
            X509_STORE_CTX_set_time(context, 0, ASN1Time.timeT(date))
            guard X509_verify_cert(context) == 1 else {
                let error = X509_STORE_CTX_get_error(context)
                OpenSSLError.drainQueue()
                throw ChainVerificationFailure(
                    reason: String(cString: X509_verify_cert_error_string(Int(error))),
                    endsAtUntrustedRoot: ChainVerificationFailure.untrustedIssuerErrors.contains(error))
            }
            // Only the intermediate was offered as untrusted, so a good chain is exactly
            // leaf → intermediate → root; anything else is not Apple's shape.
            let length = X509_STORE_CTX_get0_chain(context).map { paypanel_sk_X509_num($0) } ?? 0
            guard length == 3 else {
                throw ChainVerificationFailure(reason: "the chain has \(length) certificates instead of leaf, intermediate and root")
            }
            let chain = [leaf, intermediate, root]
            return ValidityPeriod(start: chain.map(\.notBefore).max()!, end: chain.map(\.notAfter).min()!)
        }
    }
}

/// Why a chain did not verify, in OpenSSL's words ("certificate has expired").
struct ChainVerificationFailure: Error {
    let reason: String
    /// True when the chain could not be completed to the pinned root: the intermediate's
    /// issuer is some other root (or none), as opposed to a complete chain that is invalid.
    var endsAtUntrustedRoot = false

    /// OpenSSL's verdicts for "the issuer is not in the store": the chain stops at a
    /// certificate the pinned root did not issue.
    static let untrustedIssuerErrors: Set<Int32> = [
        X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
        X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
    ]
}

private struct ChainKey: Hashable {
    let leaf: [UInt8]
    let intermediate: [UInt8]
}

private struct ValidityPeriod {
    let start: Date
    let end: Date

    func contains(_ date: Date) -> Bool { start <= date && date <= end }
}

/// Owns one `X509_STORE`. Shared between threads: it is only read after init, and OpenSSL locks
/// the store internally while building chains.
private final class X509StoreHandle: @unchecked Sendable {
    private let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_STORE_free(pointer)
    }

    /// Runs `body` with the `X509_STORE`, which stays alive until `body` returns.
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}
