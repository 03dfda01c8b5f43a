import Foundation

/// Proves a payment token came from Apple Pay, for one of our merchant certificates, recently:
/// steps 1–4 of Apple's "Verify the signature" plus the merchant key lookup.
///
/// 1. Pick the merchant identity by `header.publicKeyHash`.
/// 2. Read the CMS signature; its signer must carry the leaf marker OID and its issuer the
///    intermediate marker OID.
/// 3. The chain leaf → intermediate → pinned root must verify at the verification time
///    (remembered per chain, so the root's P-384 check is not paid per token).
/// 4. CMS_verify over ephemeralPublicKey|wrappedKey ‖ data ‖ transactionId ‖ applicationData.
/// 5. The signing time must be within `signingTimeWindow` of the verification time.
///
/// Thread-safe: one verifier serves every request.
public final class ApplePayTokenVerifier: Sendable {
    /// The default window: Apple suggests "a few minutes".
    public static let defaultSigningTimeWindow: TimeInterval = 300

    public let merchants: [MerchantIdentity]
    public let trustedRoot: Certificate
    public let signingTimeWindow: TimeInterval
    /// False only for old fixtures whose signing time is far in the past (`--no-time-check`).
    public let checksSigningTime: Bool
    let chainVerifier: CertificateChainVerifier

    /// - Parameters:
    ///   - merchants: the Payment Processing identities tokens may be encrypted to.
    ///   - trustedRoot: Apple Root CA - G3 in production; the test root in tests and the demo.
    public init(
        merchants: [MerchantIdentity], trustedRoot: Certificate,
        signingTimeWindow: TimeInterval = ApplePayTokenVerifier.defaultSigningTimeWindow, checksSigningTime: Bool = true
    ) throws(OpenSSLError) {
        self.merchants = merchants
        self.trustedRoot = trustedRoot
        self.signingTimeWindow = signingTimeWindow
        self.checksSigningTime = checksSigningTime
        chainVerifier = try CertificateChainVerifier(root: trustedRoot)
    }

    /// Parses and verifies a whole PKPaymentToken or a bare paymentData at `date`.
    public func verify(_ json: some Collection<UInt8>, at date: Date) throws(ApplePayTokenError) -> VerifiedPaymentToken {
        try verify(ApplePayPaymentToken(json: json), at: date)
    }

    /// Verifies a parsed token at `date` (the clock's now, or `--now`).
    public func verify(_ token: ApplePayPaymentToken, at date: Date) throws(ApplePayTokenError) -> VerifiedPaymentToken {
        let merchant = try merchant(for: token)
        let signatureBytes = try token.decodedSignature()
        let signature: CMSSignedData
        do {
            signature = try CMSSignedData(ber: signatureBytes)
        } catch {
            throw .signatureMalformed(reason: error.reason)
        }
        let certificates = signature.certificates
        guard signature.signerCount == 1 else {
            throw .signatureMalformed(reason: "it has \(signature.signerCount) signers instead of one")
        }
        guard let leaf = certificates.first(where: signature.isSigner) else {
            throw .signingCertificatesMissing(reason: "the signer's certificate is not included")
        }
        guard let intermediate = certificates.first(where: { $0 != leaf && $0.isIssuer(of: leaf) }) else {
            throw .signingCertificatesMissing(reason: "the certificate that issued the signer's is not included")
        }
        guard leaf.hasExtension(AppleOID.leafMarker) else { throw .leafMarkerMissing(subject: leaf.subject) }
        guard intermediate.hasExtension(AppleOID.intermediateMarker) else {
            throw .intermediateMarkerMissing(subject: intermediate.subject)
        }
        do {
            try chainVerifier.verify(leaf: leaf, intermediate: intermediate, at: date)
        } catch {
            throw .chainInvalid(reason: error.reason, root: trustedRoot.subject)
        }
        switch signature.verify(detachedContent: token.signedContent) {
        case .valid: break
        case .signatureInvalid: throw .signatureInvalid
        case .contentDigestMismatch: throw .messageDigestMismatch
        }
        let signingTime = signature.signingTime
        if checksSigningTime {
            guard let signingTime else { throw .signingTimeMissing }
            if date.timeIntervalSince(signingTime) > signingTimeWindow {
                throw .signingTimeStale(signedAt: signingTime, verifiedAt: date, window: signingTimeWindow)
            }
            if signingTime.timeIntervalSince(date) > signingTimeWindow {
                throw .signingTimeInFuture(signedAt: signingTime, verifiedAt: date, window: signingTimeWindow)
            }
        }
        return VerifiedPaymentToken(
            token: token, merchant: merchant, signingTime: signingTime, signer: leaf, intermediate: intermediate, verifiedAt: date)
    }

    /// The configured identity the token names, checked against the token's version.
    package func merchant(for token: ApplePayPaymentToken) throws(ApplePayTokenError) -> MerchantIdentity {
        guard let merchant = merchants.first(where: { ConstantTime.equals($0.publicKeyHash, token.header.publicKeyHash) }) else {
            throw .unknownMerchantKey(publicKeyHash: token.header.publicKeyHashBase64, configuredCount: merchants.count)
        }
        guard merchant.tokenVersion == token.version else {
            throw .versionDoesNotMatchKey(version: token.version, keyKind: merchant.privateKey.key.kindDescription)
        }
        return merchant
    }
}

/// A token whose signature, chain and signing time checked out, with the merchant identity it
/// was encrypted for. Only `ApplePayTokenVerifier` makes these, so a decryptor taking one
/// cannot be handed an unverified token.
public struct VerifiedPaymentToken: Sendable {
    public let token: ApplePayPaymentToken
    public let merchant: MerchantIdentity
    /// The CMS signing time (nil only when time checks are off and the signature has none).
    public let signingTime: Date?
    /// The leaf certificate that signed the token.
    public let signer: Certificate
    public let intermediate: Certificate
    public let verifiedAt: Date

    public var transactionId: String { token.header.transactionId }
}
