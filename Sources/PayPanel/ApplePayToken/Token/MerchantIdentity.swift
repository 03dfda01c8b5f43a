/// A merchant's Apple Pay Payment Processing certificate with its private key: what tokens are
/// encrypted to. Several may be configured at once (certificate rotation); a token names the
/// one it was encrypted for by `publicKeyHash`.
public struct MerchantIdentity: Sendable {
    public let certificate: Certificate
    public let privateKey: PrivateKey
    /// base64 of this is what tokens carry as `header.publicKeyHash`: SHA-256 of the
    /// certificate's DER SubjectPublicKeyInfo.
    public let publicKeyHash: [UInt8]
    /// partyV of the EC_v1 key derivation: SHA-256 of the merchant identifier, read from the
    /// certificate's extension 1.2.840.113635.100.6.32. Nil only for RSA certificates without it.
    public let merchantIdentifierHash: [UInt8]?
    /// The merchant identifier (`merchant.com.example`) from the certificate's subject UID,
    /// for display.
    public let merchantIdentifier: String?

    /// Pairs a certificate with its private key, checking that they belong together, that the
    /// key is P-256 or RSA ≥ 2048, and that an EC certificate carries the merchant identifier.
    public init(certificate: Certificate, privateKey: PrivateKey) throws(KeyMaterialError) {
        let certificateKey: EVPKey
        do {
            certificateKey = try certificate.publicKey
            publicKeyHash = SHA256.hash(try certificate.subjectPublicKeyInfoDER)
        } catch {
            throw .invalidEncoding(what: "certificate's public key", reason: error.reason)
        }
        guard certificateKey.hasSamePublicKey(as: privateKey.key) else {
            throw .keyDoesNotMatchCertificate(certificate: certificate.subject)
        }
        let identifierHash = try MerchantIdentity.merchantIdentifierHash(of: certificate)
        if case .ec = privateKey, identifierHash == nil {
            throw .missingMerchantIdentifier(certificate: certificate.subject)
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.merchantIdentifierHash = identifierHash
        merchantIdentifier = certificate.userID
    }

    /// Reads both from PEM texts (key formats: see `PrivateKey.init(pemRepresentation:)`).
    public init(certificatePEM: String, privateKeyPEM: String) throws(KeyMaterialError) {
        try self.init(certificate: Certificate(pemRepresentation: certificatePEM), privateKey: PrivateKey(pemRepresentation: privateKeyPEM))
    }

    /// base64 `publicKeyHash`, as tokens carry it.
    public var publicKeyHashBase64: String { Base64.encode(publicKeyHash) }

    /// Which token version this key decrypts.
    public var tokenVersion: PaymentTokenVersion {
        switch privateKey {
        case .ec: .ecV1
        case .rsa: .rsaV1
        }
    }

    /// The extension holds a DER string (UTF8String in Apple's certificates) of 64 hex digits:
    /// the SHA-256 of the merchant identifier. A raw 32-byte OCTET STRING is accepted too.
    package static func merchantIdentifierHash(of certificate: Certificate) throws(KeyMaterialError) -> [UInt8]? {
        guard let value = certificate.extensionValue(AppleOID.merchantIdentifier) else { return nil }
        let invalid = KeyMaterialError.invalidMerchantIdentifier(certificate: certificate.subject)
        guard value.count >= 2 else { throw invalid }
        let tag = value[0]
        var length = Int(value[1])
        var start = 2
        if length == 0x81 {
            guard value.count >= 3 else { throw invalid }
            length = Int(value[2])
            start = 3
        }
        guard length < 0x80 || start == 3, value.count == start + length else { throw invalid }
        let content = Array(value[start...])
        switch tag {
        case 0x0C, 0x13, 0x16:  // UTF8String, PrintableString, IA5String
            guard content.count == 64, let hash = [UInt8](hexString: String(decoding: content, as: UTF8.self)) else { throw invalid }
            return hash
        case 0x04:  // OCTET STRING
            guard content.count == 32 else { throw invalid }
            return content
        default:
            throw invalid
        }
    }
}

extension Certificate {
    /// The token version a merchant certificate with this key receives: EC_v1 for P-256,
    /// RSA_v1 for RSA, nil for anything else.
    public var receivableTokenVersion: PaymentTokenVersion? {
        guard let key = try? publicKey else { return nil }
        if key.isEC && key.groupName == P256.groupName { return .ecV1 }
        return key.isRSA ? .rsaV1 : nil
    }
}

/// The object identifiers Apple marks its certificates with.
enum AppleOID {
    /// On the leaf certificate that signs tokens.
    static let leafMarker = ASN1ObjectIdentifier("1.2.840.113635.100.6.29")
    /// On the intermediate CA (Apple Application Integration CA - G3) that issues it.
    static let intermediateMarker = ASN1ObjectIdentifier("1.2.840.113635.100.6.2.14")
    /// On a merchant's Payment Processing certificate: hex SHA-256 of the merchant identifier.
    static let merchantIdentifier = ASN1ObjectIdentifier("1.2.840.113635.100.6.32")
}
