import Foundation
internal import COpenSSL

/// An X.509 certificate: a merchant's Payment Processing certificate, a certificate from a
/// token's signature, or a pinned root.
///
/// Equal when their DER encodings are equal.
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    let handle: X509Handle
    /// The DER encoding.
    public let derRepresentation: [UInt8]
    /// SHA-256 of the DER encoding: the certificate's identity.
    public let sha256Fingerprint: [UInt8]

    /// Takes ownership of one reference to `x509`.
    init(taking x509: OpaquePointer) throws(OpenSSLError) {
        handle = X509Handle(taking: x509)
        derRepresentation = try handle.withPointer { (x509) throws(OpenSSLError) -> [UInt8] in
            try DERCoding.encode("encoding a certificate") { i2d_X509(x509, $0) }
        }
        sha256Fingerprint = SHA256.hash(derRepresentation)
    }

    /// Parses one DER certificate.
    public init(derRepresentation der: some Collection<UInt8>) throws(KeyMaterialError) {
        do {
            let x509 = try DERCoding.decode(der, "reading a certificate", free: { X509_free($0) }) { d2i_X509(nil, $0, $1) }
            try self.init(taking: x509)
        } catch {
            throw KeyMaterialError.invalidEncoding(what: "certificate", reason: error.reason)
        }
    }

    /// Parses the first `CERTIFICATE` block of a PEM text (text around it is ignored).
    public init(pemRepresentation text: String) throws(KeyMaterialError) {
        guard let first = try Certificate.all(pemRepresentation: text).first else {
            throw KeyMaterialError.noPEMBlock(expected: ["CERTIFICATE"], found: try PEMDocument(text).labels)
        }
        self = first
    }

    /// Reads a certificate file as it comes: PEM, or the raw DER Apple's download pages serve
    /// (`AppleRootCA-G3.cer`).
    public init(fileContents bytes: [UInt8]) throws(KeyMaterialError) {
        if PEMDocument.looksLikePEM(bytes) {
            try self.init(pemRepresentation: String(decoding: bytes, as: UTF8.self))
        } else {
            try self.init(derRepresentation: bytes)
        }
    }

    /// Every `CERTIFICATE` block of a PEM text, in order.
    public static func all(pemRepresentation text: String) throws(KeyMaterialError) -> [Certificate] {
        var certificates: [Certificate] = []
        for block in try PEMDocument(text).blocks where block.label == "CERTIFICATE" {
            certificates.append(try Certificate(derRepresentation: block.der))
        }
        return certificates
    }

    /// The subject, most significant attribute last as OpenSSL prints it:
    /// `UID=merchant.com.example, CN=Apple Pay Payment Processing:merchant.com.example, …`.
    public var subject: String {
        handle.withPointer { DistinguishedName(X509_get_subject_name($0)).description }
    }

    /// The issuer's name, in the same form as `subject`.
    public var issuer: String {
        handle.withPointer { DistinguishedName(X509_get_issuer_name($0)).description }
    }

    /// The subject's common name (CN), if it has one.
    public var commonName: String? {
        handle.withPointer { DistinguishedName(X509_get_subject_name($0)).first(NID_commonName) }
    }

    /// The subject's user ID (UID): Apple puts the merchant identifier there.
    public var userID: String? {
        handle.withPointer { DistinguishedName(X509_get_subject_name($0)).first(NID_userId) }
    }

    /// Start of the validity period.
    public var notBefore: Date {
        handle.withPointer { X509_get0_notBefore($0).flatMap(ASN1Time.date) } ?? .distantFuture
    }

    /// End of the validity period.
    public var notAfter: Date {
        handle.withPointer { X509_get0_notAfter($0).flatMap(ASN1Time.date) } ?? .distantPast
    }

    /// The DER SubjectPublicKeyInfo, exactly as encoded in the certificate.
    public var subjectPublicKeyInfoDER: [UInt8] {
        get throws(OpenSSLError) {
            // X509_get_X509_PUBKEY borrows from the certificate: encode before letting go of it.
            try handle.withPointer { (x509) throws(OpenSSLError) -> [UInt8] in
                guard let publicKeyInfo = X509_get_X509_PUBKEY(x509) else { throw OpenSSLError.drain("reading a public key") }
                return try DERCoding.encode("encoding a public key") { i2d_X509_PUBKEY(publicKeyInfo, $0) }
            }
        }
    }

    /// The certificate's public key.
    package var publicKey: EVPKey {
        get throws(OpenSSLError) {
            // X509_get_pubkey returns a new reference (or nil for an unsupported key type).
            guard let key = handle.withPointer({ X509_get_pubkey($0) }) else { throw OpenSSLError.drain("reading a certificate's public key") }
            return EVPKey(taking: key)
        }
    }

    /// True when this certificate's subject (and key identifier) is `other`'s issuer. Names
    /// only: chain verification checks the signatures.
    func isIssuer(of other: Certificate) -> Bool {
        let issued = handle.withPointer { issuer in
            other.handle.withPointer { subject in X509_check_issued(issuer, subject) }
        } == X509_V_OK
        OpenSSLError.drainQueue()
        return issued
    }

    /// True when `issuer` issued this certificate: its name (and key identifier) is this
    /// certificate's issuer and its public key verifies this certificate's signature. Says
    /// nothing about validity periods or trust: chain verification does that.
    public func isIssued(by issuer: Certificate) -> Bool {
        guard issuer.isIssuer(of: self) else {
            OpenSSLError.drainQueue()
            return false
        }
        // The key is borrowed from the issuer's certificate: both stay alive inside the scopes.
        let verified = issuer.handle.withPointer { issuerPointer in
            handle.withPointer { pointer in
                guard let key = X509_get0_pubkey(issuerPointer) else { return false }
                return X509_verify(pointer, key) == 1
            }
        }
        OpenSSLError.drainQueue()
        return verified
    }

    /// True when the certificate carries the extension `oid`.
    func hasExtension(_ oid: ASN1ObjectIdentifier) -> Bool {
        handle.withPointer { x509 in oid.withPointer { X509_get_ext_by_OBJ(x509, $0, -1) } } >= 0
    }

    /// The DER contents of extension `oid` (the extnValue OCTET STRING's bytes), nil when absent.
    func extensionValue(_ oid: ASN1ObjectIdentifier) -> [UInt8]? {
        // The extension and its data are borrowed from the certificate: copy them out inside.
        handle.withPointer { x509 in
            let index = oid.withPointer { X509_get_ext_by_OBJ(x509, $0, -1) }
            guard index >= 0, let `extension` = X509_get_ext(x509, index),
                let data = X509_EXTENSION_get_data(`extension`)
            else { return nil }
            let length = Int(ASN1_STRING_length(data))
            guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }
    }

    public var description: String { subject }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sha256Fingerprint)
    }
}

/// Owns one `X509`. Sendable because nothing modifies it after parsing; OpenSSL 3 computes its
/// cached extension data under a lock, so concurrent readers are safe.
final class X509Handle: @unchecked Sendable {
    private let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Runs `body` with the `X509`, which stays alive until `body` returns. What `body` borrows
    /// from it (`get0` names, times, extensions) must be copied out before it returns; C calls
    /// that keep the certificate (stacks, stores, CMS) take their own reference or are covered
    /// by the caller keeping the certificate alive (`withExtendedLifetime`).
    func withPointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }
}

extension Certificate {
    /// Runs `body` with a new `STACK_OF(X509)` of `certificates` that takes no references: the
    /// certificates are kept alive until `body` returns, then the stack is freed. OpenSSL calls
    /// that keep a certificate beyond the call (`CMS_sign`, `CMS_verify`) take their own.
    static func withBorrowedStack<Result>(
        _ certificates: [Certificate], _ operation: @autoclosure () -> String,
        _ body: (OpaquePointer) throws(OpenSSLError) -> Result
    ) throws(OpenSSLError) -> Result {
        guard let stack = paypanel_sk_X509_new_null() else { throw OpenSSLError.drain(operation()) }
        defer { paypanel_sk_X509_free(stack) }
        return try withExtendedLifetime(certificates) { () throws(OpenSSLError) -> Result in
            for certificate in certificates {
                // The pointer outlives this closure, in the stack: `withExtendedLifetime` above
                // keeps its certificate alive for as long as the stack is used.
                guard certificate.handle.withPointer({ paypanel_sk_X509_push(stack, $0) }) > 0 else {
                    throw OpenSSLError.drain(operation())
                }
            }
            return try body(stack)
        }
    }
}

/// Reads the attributes of an `X509_NAME` (borrowed from its certificate).
private struct DistinguishedName: CustomStringConvertible {
    let name: OpaquePointer?

    init(_ name: OpaquePointer?) {
        self.name = name
    }

    /// `UID=…, CN=…, OU=…, O=…, C=…` in the certificate's order.
    var description: String {
        guard let name else { return "" }
        var parts: [String] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index) else { continue }
            let nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry))
            let label = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "?"
            parts.append("\(label)=\(Self.text(of: entry) ?? "?")")
        }
        return parts.joined(separator: ", ")
    }

    func first(_ nid: Int32) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        return Self.text(of: entry)
    }

    private static func text(of entry: OpaquePointer) -> String? {
        guard let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else {
            OpenSSLError.drainQueue()
            return nil
        }
        defer { _ = paypanel_OPENSSL_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }
}
