import Foundation

/// Proves a payment token came from Apple Pay, for one of our merchant certificates, recently:
/// Apple's "Verify the signature" steps, then the merchant key lookup, in Apple's order.
///
/// 1. Read the CMS signature; its signer must carry the leaf marker OID and its issuer the
///    intermediate marker OID.
/// 2. The chain leaf → intermediate → pinned root must verify at the verification time
///    (remembered per chain, so the root's P-384 check is not paid per token). The pinned root
///    is Apple Root CA - G3 unless the caller pins another.
/// 3. CMS_verify over ephemeralPublicKey|wrappedKey ‖ data ‖ transactionId ‖ applicationData.
/// 4. The signing time must be within `signingTimeWindow` of the verification time.
/// 5. A token from Apple Pay's sandbox is refused unless `acceptsSandbox`.
/// 6. Pick the merchant identity by `header.publicKeyHash`.
///
/// Whether the token is trusted is settled before anything is said about our merchant keys:
/// a forged token learns nothing about them.
///
/// Thread-safe: one verifier serves every request.
public final class ApplePayTokenVerifier: Sendable {
    /// The default window: Apple suggests "a few minutes".
    public static let defaultSigningTimeWindow: TimeInterval = 300

    public let merchants: [MerchantIdentity]
    /// The root every token's chain must end at.
    public let trustedRoot: Certificate
    public let signingTimeWindow: TimeInterval
    /// False only for old fixtures whose signing time is far in the past (`--no-time-check`).
    public let checksSigningTime: Bool
    /// True when tokens signed by Apple Pay's sandbox pass (test deployments); false, the
    /// default, refuses them with `sandboxNotAccepted`.
    public let acceptsSandbox: Bool
    let chainVerifier: CertificateChainVerifier

    /// - Parameters:
    ///   - merchants: the Payment Processing identities tokens may be encrypted to.
    ///   - trustedRoot: Apple Root CA - G3 (the default) in production; a test root only in
    ///     tests and the demo.
    ///   - acceptsSandbox: whether Apple Pay sandbox tokens pass (never for real money).
    public init(
        merchants: [MerchantIdentity], trustedRoot: Certificate = ApplePayRoots.appleRootCAG3,
        signingTimeWindow: TimeInterval = ApplePayTokenVerifier.defaultSigningTimeWindow, checksSigningTime: Bool = true,
        acceptsSandbox: Bool = false
    ) throws(OpenSSLError) {
        self.merchants = merchants
        self.trustedRoot = trustedRoot
        self.signingTimeWindow = signingTimeWindow
        self.checksSigningTime = checksSigningTime
        self.acceptsSandbox = acceptsSandbox
        chainVerifier = try CertificateChainVerifier(root: trustedRoot)
    }

    /// Parses and verifies a whole PKPaymentToken or a bare paymentData at `date`.
    public func verify(_ json: some Collection<UInt8>, at date: Date) throws(ApplePayTokenError) -> VerifiedPaymentToken {
        try verify(ApplePayPaymentToken(json: json), at: date)
    }

    /// Verifies a parsed token at `date` (the clock's now, or `--now`).
    public func verify(_ token: ApplePayPaymentToken, at date: Date) throws(ApplePayTokenError) -> VerifiedPaymentToken {
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
        } catch where error.endsAtUntrustedRoot {
            throw .rootNotTrusted(intermediate: intermediate, pinnedRoot: trustedRoot.subject)
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
        let environment = ApplePayEnvironment(signer: leaf)
        if environment == .sandbox && !acceptsSandbox { throw .sandboxNotAccepted(signer: leaf.subject) }
        let merchant = try merchant(for: token)
        return VerifiedPaymentToken(
            token: token, merchant: merchant, signingTime: signingTime, signer: leaf, intermediate: intermediate,
            environment: environment, verifiedAt: date)
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
    /// Production or sandbox, by the signing leaf (see `ApplePayEnvironment`).
    public let environment: ApplePayEnvironment
    public let verifiedAt: Date

    public var transactionId: String { token.header.transactionId }
}
