import Foundation

/// Why an Apple Pay payment token was refused. Each failure has its own code and a message
/// that names it and says what to do; no message contains key material, the DPAN or the
/// cryptogram (a transactionId, a publicKeyHash and amounts are not secret).
public enum ApplePayTokenError: PayPanelError, Equatable {
    case malformedJSON(reason: String)
    case malformedToken(field: String, reason: String)
    case invalidBase64(field: String)
    case simulatorToken
    case unsupportedVersion(String)
    case unknownMerchantKey(publicKeyHash: String, configuredCount: Int)
    case versionDoesNotMatchKey(version: PaymentTokenVersion, keyKind: String)
    case signatureMalformed(reason: String)
    case signingCertificatesMissing(reason: String)
    case leafMarkerMissing(subject: String)
    case intermediateMarkerMissing(subject: String)
    case chainInvalid(reason: String, root: String)
    /// The chain stops at a root other than the pinned one: `intermediate` was issued by a
    /// certificate the verifier does not trust (the token carries it, so callers can tell whose
    /// root it was).
    case rootNotTrusted(intermediate: Certificate, pinnedRoot: String)
    /// Signed by Apple Pay's sandbox signer while the verifier accepts production tokens only.
    case sandboxNotAccepted(signer: String)
    case signatureInvalid
    case messageDigestMismatch
    case signingTimeMissing
    case signingTimeStale(signedAt: Date, verifiedAt: Date, window: TimeInterval)
    case signingTimeInFuture(signedAt: Date, verifiedAt: Date, window: TimeInterval)
    case ephemeralKeyInvalid(reason: String)
    case keyUnwrapFailed
    case decryptionFailed
    case plaintextMalformed(field: String, reason: String)
    case paymentDataTypeUnsupported(String)
    case amountMismatch(token: Amount, expected: Amount)
    case currencyMismatch(token: Currency, expected: Currency)
    /// OpenSSL failed at something that is not the token's fault (memory, a missing algorithm).
    case cryptoFailure(OpenSSLError)

    public var code: String {
        switch self {
        case .malformedJSON: "token_malformed_json"
        case .malformedToken: "token_malformed"
        case .invalidBase64: "token_invalid_base64"
        case .simulatorToken: "token_from_simulator"
        case .unsupportedVersion: "token_version_unsupported"
        case .unknownMerchantKey: "token_merchant_key_unknown"
        case .versionDoesNotMatchKey: "token_version_key_mismatch"
        case .signatureMalformed: "token_signature_malformed"
        case .signingCertificatesMissing: "token_signing_certificates_missing"
        case .leafMarkerMissing: "token_leaf_marker_missing"
        case .intermediateMarkerMissing: "token_intermediate_marker_missing"
        case .chainInvalid: "token_chain_invalid"
        case .rootNotTrusted: "token_root_not_trusted"
        case .sandboxNotAccepted: "token_sandbox_not_accepted"
        case .signatureInvalid: "token_signature_invalid"
        case .messageDigestMismatch: "token_message_digest_mismatch"
        case .signingTimeMissing: "token_signing_time_missing"
        case .signingTimeStale: "token_signing_time_stale"
        case .signingTimeInFuture: "token_signing_time_in_future"
        case .ephemeralKeyInvalid: "token_ephemeral_key_invalid"
        case .keyUnwrapFailed: "token_key_unwrap_failed"
        case .decryptionFailed: "token_decryption_failed"
        case .plaintextMalformed: "token_plaintext_malformed"
        case .paymentDataTypeUnsupported: "token_payment_data_type_unsupported"
        case .amountMismatch: "token_amount_mismatch"
        case .currencyMismatch: "token_currency_mismatch"
        case .cryptoFailure: "token_crypto_failure"
        }
    }

    public var message: String {
        switch self {
        case .malformedJSON(let reason):
            return "the payment token is not valid JSON (\(reason)): pass the PKPaymentToken, or its paymentData, exactly as the device sent it"
        case .malformedToken(let field, let reason):
            return "the payment token's \(field) \(reason): it is not an Apple Pay paymentData object, or it was cut or edited in transit"
        case .invalidBase64(let field):
            return "the payment token's \(field) is not valid base64: the token was damaged in transit; send it unmodified"
        case .simulatorToken:
            return "the payment token is empty, as the iOS Simulator makes them: test with a real device, or make a test token with 'paypanel token seal'"
        case .unsupportedVersion(let version):
            return "payment token version \(JSONWriter.quoted(version)) is not supported: PayPanel verifies EC_v1 and RSA_v1 tokens"
        case .unknownMerchantKey(let hash, let count):
            let configured = count == 0 ? "no merchant certificates are configured" : "none of the \(count) configured merchant certificates has it"
            return "the token was encrypted for the merchant certificate with publicKeyHash \(hash), but \(configured): "
                + "add that Payment Processing certificate and its key (--merchant-cert/--merchant-key)"
        case .versionDoesNotMatchKey(let version, let kind):
            return "the token is \(version.rawValue) but the merchant certificate it names has \(kind): "
                + "EC_v1 needs an EC P-256 Payment Processing certificate, RSA_v1 an RSA one"
        case .signatureMalformed(let reason):
            return "the token's signature is not a CMS SignedData structure as Apple makes them (\(reason)): the token was damaged or forged"
        case .signingCertificatesMissing(let reason):
            return "the token's signature does not carry Apple's signing certificates (\(reason)): the token was not signed by Apple Pay"
        case .leafMarkerMissing(let subject):
            return "the certificate that signed the token (\(subject)) lacks Apple's leaf marker 1.2.840.113635.100.6.29: "
                + "the token was not signed by Apple Pay"
        case .intermediateMarkerMissing(let subject):
            return "the intermediate certificate (\(subject)) lacks Apple's marker 1.2.840.113635.100.6.2.14: "
                + "the token was not signed by Apple Pay"
        case .chainInvalid(let reason, let root):
            return "the token's signing certificates do not chain to the pinned root \(JSONWriter.quoted(root)) at the verification time (\(reason)): "
                + "Apple's signing certificates expire, so an old token verifies only at its signing time"
        case .rootNotTrusted(let intermediate, let root):
            return "the token's signing chain does not end at the pinned root \(JSONWriter.quoted(root)): its intermediate "
                + "\(JSONWriter.quoted(intermediate.subject)) was issued by \(JSONWriter.quoted(intermediate.issuer)), which is not trusted; "
                + "the token was not signed by Apple Pay, or this verifier pins the wrong root"
        case .sandboxNotAccepted(let signer):
            return "the token was signed by Apple Pay's sandbox (\(signer)): it carries a sandbox test card, not a real one, "
                + "and this verifier accepts production tokens only; accept sandbox tokens on test deployments alone"
        case .signatureInvalid:
            return "the token's signature does not verify with its signing certificate: the token was forged or its signature altered"
        case .messageDigestMismatch:
            return "the token's signature is genuine but its message digest does not match the token's data, key and transactionId: "
                + "the token was altered after signing"
        case .signingTimeMissing:
            return "the token's signature has no signing time, so its age cannot be checked: the token was not made by Apple Pay "
                + "(use --no-time-check only for test fixtures)"
        case .signingTimeStale(let signedAt, let verifiedAt, let window):
            return "the token was signed at \(Timestamp.format(signedAt)), more than \(Self.seconds(window)) before the verification time "
                + "\(Timestamp.format(verifiedAt)): it is stale or replayed; ask the payer to pay again "
                + "(old test fixtures: --now at their signing time, or --no-time-check)"
        case .signingTimeInFuture(let signedAt, let verifiedAt, let window):
            return "the token was signed at \(Timestamp.format(signedAt)), more than \(Self.seconds(window)) after the verification time "
                + "\(Timestamp.format(verifiedAt)): check this machine's clock (or --now)"
        case .ephemeralKeyInvalid(let reason):
            return "the token's ephemeralPublicKey is not a P-256 public key (\(reason)): the token was damaged or forged"
        case .keyUnwrapFailed:
            return "the token's wrappedKey does not unwrap with the merchant's RSA key: the token was altered, "
                + "or the certificate and key configured for its publicKeyHash do not belong together"
        case .decryptionFailed:
            return "the token's data failed AES-GCM authentication: it was altered, or it was not encrypted for this merchant key"
        case .plaintextMalformed(let field, let reason):
            return "the decrypted payment data's \(field) \(reason): it is not what Apple Pay encrypts"
        case .paymentDataTypeUnsupported(let type):
            return "the token carries \(JSONWriter.quoted(type)) payment data: this backend authorizes 3-D Secure tokens only "
                + "(EMV tokens are for China UnionPay acquirers)"
        case .amountMismatch(let token, let expected):
            return "the token authorizes \(token) but the payment is for \(expected): the payer approved a different amount; ask them to pay again"
        case .currencyMismatch(let token, let expected):
            return "the token is in \(token.code) but the payment is in \(expected.code): the payment request and the payment disagree; ask the payer to pay again"
        case .cryptoFailure(let error):
            return "OpenSSL could not process the token: \(error.message)"
        }
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        "\(Int(interval.rounded())) s"
    }
}
