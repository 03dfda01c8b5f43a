import Foundation
internal import COpenSSL

/// A CMS (PKCS #7) SignedData structure with detached content, as in an Apple Pay token's
/// `signature`: BER (Apple uses indefinite lengths), the signer's certificate chain inside, one
/// SignerInfo with signed attributes (content type, signing time, message digest).
package final class CMSSignedData {
    /// Used only by this object's own methods, during which it is alive.
    private let pointer: OpaquePointer
    /// The certificates the structure carried, parsed through `CertificateCache`.
    let certificates: [Certificate]

    /// Parses BER or DER; refuses anything but SignedData with detached content. The
    /// certificates are split off and parsed separately (see `CMSCertificateSplitter`).
    init(ber: [UInt8]) throws(OpenSSLError) {
        let split = try CMSCertificateSplitter.split(ber)
        var certificates: [Certificate] = []
        for encoding in split.certificates {
            do {
                certificates.append(try CertificateCache.shared.certificate(encoded: encoding))
            } catch {
                throw OpenSSLError(operation: "reading a certificate of the CMS signature", reason: error.message)
            }
        }
        self.certificates = certificates
        // Checked before this object takes it: a refused structure is freed by `decode`, and
        // `deinit` only ever frees one that was accepted.
        pointer = try DERCoding.decode(
            split.withoutCertificates, "reading the CMS signature", free: { CMS_ContentInfo_free($0) },
            check: Self.requireDetachedSignedData
        ) {
            d2i_CMS_ContentInfo(nil, $0, $1)
        }
    }

    /// Refuses anything but SignedData with detached content.
    private static func requireDetachedSignedData(_ cms: OpaquePointer) throws(OpenSSLError) {
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            throw OpenSSLError(operation: "reading the CMS signature", reason: "it is not SignedData")
        }
        guard CMS_is_detached(cms) == 1 else {
            throw OpenSSLError(operation: "reading the CMS signature", reason: "it embeds its content instead of signing detached data")
        }
    }

    deinit {
        CMS_ContentInfo_free(pointer)
    }

    /// How many SignerInfos there are (Apple's tokens have exactly one).
    var signerCount: Int {
        guard let infos = CMS_get0_SignerInfos(pointer) else { return 0 }
        return Int(paypanel_sk_CMS_SignerInfo_num(infos))
    }

    private var firstSigner: OpaquePointer? {
        guard let infos = CMS_get0_SignerInfos(pointer), paypanel_sk_CMS_SignerInfo_num(infos) > 0 else { return nil }
        return paypanel_sk_CMS_SignerInfo_value(infos, 0)
    }

    /// True when `certificate` is the one the (first) SignerInfo names as its signer.
    func isSigner(_ certificate: Certificate) -> Bool {
        guard let signer = firstSigner else { return false }
        return certificate.handle.withPointer { CMS_SignerInfo_cert_cmp(signer, $0) } == 0
    }

    /// The signed `signingTime` attribute; nil when absent, repeated or unreadable.
    var signingTime: Date? {
        guard let signer = firstSigner else { return nil }
        let index = CMS_signed_get_attr_by_NID(signer, NID_pkcs9_signingTime, -1)
        guard index >= 0, CMS_signed_get_attr_by_NID(signer, NID_pkcs9_signingTime, index) < 0,
            let attribute = CMS_signed_get_attr(signer, index), X509_ATTRIBUTE_count(attribute) == 1,
            let value = X509_ATTRIBUTE_get0_type(attribute, 0)
        else { return nil }
        switch value.pointee.type {
        case V_ASN1_UTCTIME: return value.pointee.value.utctime.flatMap { ASN1Time.date($0) }
        case V_ASN1_GENERALIZEDTIME: return value.pointee.value.generalizedtime.flatMap { ASN1Time.date($0) }
        default: return nil
        }
    }

    enum Verification: Equatable {
        case valid
        /// The signature over the signed attributes does not verify with the signer's key.
        case signatureInvalid
        /// The signature is good but the signed message digest is not the content's.
        case contentDigestMismatch
    }

    /// Checks the signature over `content` with OpenSSL's CMS_verify, finding the signer among
    /// the structure's certificates. The signer's chain is not checked here
    /// (`CMS_NO_SIGNER_CERT_VERIFY`): the caller pins its own root and remembers good chains.
    func verify(detachedContent content: [UInt8]) -> Verification {
        // The stack borrows the certificates (CMS_verify takes its own references). Failing to
        // build it (out of memory) drains OpenSSL's queue and counts as a bad signature.
        let verified = try? Certificate.withBorrowedStack(certificates, "verifying the CMS signature") { stack in
            MemoryBIO.withReadOnly(content) { bio in
                CMS_verify(pointer, stack, nil, bio, nil, UInt32(CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY))
            }
        }
        guard let verified else { return .signatureInvalid }
        guard verified != 1 else { return .valid }
        OpenSSLError.drainQueue()
        // CMS_verify found the signer's key before failing; checking the signature over the
        // signed attributes alone tells a forged signature from altered content.
        guard let signer = firstSigner, CMS_SignerInfo_verify(signer) == 1 else {
            OpenSSLError.drainQueue()
            return .signatureInvalid
        }
        return .contentDigestMismatch
    }

    /// Signs `content` detached, as Apple's servers do: SHA-256, the signer certificate and
    /// `chain` embedded, signed attributes with the given signing time. Returns DER. A nil
    /// `signingTime` leaves out the signed attributes altogether (OpenSSL would otherwise add
    /// the system time), for tests of tokens without one.
    package static func signDetached(
        _ content: [UInt8], signer: Certificate, key: EVPKey, chain: [Certificate], signingTime: Date?
    ) throws(OpenSSLError) -> [UInt8] {
        let operation = "signing with CMS"
        // CMS_sign takes its own reference to each certificate of the borrowed stack.
        let made = try Certificate.withBorrowedStack(chain, operation) { stack in
            CMS_sign(nil, nil, stack, nil, UInt32(CMS_DETACHED | CMS_BINARY | CMS_PARTIAL))
        }
        guard let cms = made else { throw OpenSSLError.drain(operation) }
        defer { CMS_ContentInfo_free(cms) }
        let attributes = signingTime == nil ? CMS_NOATTR : 0
        // The SignerInfo takes its own references to the certificate and the key.
        let added = signer.handle.withPointer { certificate in
            key.withPointer { key in
                FetchedAlgorithms.sha256.withPointer { sha256 in
                    CMS_add1_signer(cms, certificate, key, sha256, UInt32(CMS_BINARY | CMS_PARTIAL | CMS_NOSMIMECAP | attributes))
                }
            }
        }
        guard let signerInfo = added else { throw OpenSSLError.drain(operation) }
        if let signingTime {
            // Set before CMS_final, which adds the current system time only when none is present.
            let time = try ASN1Time.make(signingTime)
            defer { ASN1_TIME_free(time) }
            try CMS_signed_add1_attr_by_NID(signerInfo, NID_pkcs9_signingTime, ASN1_STRING_type(time), time, -1)
                .check(operation)
        }
        try MemoryBIO.withReadOnly(content) { bio throws(OpenSSLError) in
            try CMS_final(cms, bio, nil, UInt32(CMS_DETACHED | CMS_BINARY)).check(operation)
        }
        return try DERCoding.encode(operation) { i2d_CMS_ContentInfo(cms, $0) }
    }
}
