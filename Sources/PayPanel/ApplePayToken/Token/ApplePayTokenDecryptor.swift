import Foundation

/// Verifies and decrypts Apple Pay payment tokens (Apple's Payment Token Format Reference):
/// EC_v1 (ECDH P-256, the SP 800-56A KDF, AES-256-GCM) and RSA_v1 (RSA-OAEP-SHA256,
/// AES-128-GCM). Thread-safe: one decryptor serves every request.
///
/// A payment does more than decrypt: `PaymentService.authorize(applePayToken:…)` verifies and
/// decrypts here, matches the intent's amount, and records the transactionId in the transaction
/// that opens the attempt, so a token pays once.
public final class ApplePayTokenDecryptor: Sendable {
    public let verifier: ApplePayTokenVerifier

    public init(verifier: ApplePayTokenVerifier) {
        self.verifier = verifier
    }

    /// Verifies (see `ApplePayTokenVerifier`) and decrypts a whole PKPaymentToken or a bare
    /// paymentData at `date`.
    public func decrypt(_ json: some Collection<UInt8>, at date: Date) throws(ApplePayTokenError) -> DecryptedPaymentToken {
        try decrypt(verifier.verify(json, at: date))
    }

    /// Decrypts a verified token with the merchant key it names.
    public func decrypt(_ verified: VerifiedPaymentToken) throws(ApplePayTokenError) -> DecryptedPaymentToken {
        let plaintext = try decryptPayload(verified.token, merchant: verified.merchant)
        return try DecryptedPaymentToken(plaintext: plaintext, verified: verified)
    }

    /// The decrypted `data` bytes. Does not verify: only `decrypt(_ verified:)` and the
    /// benchmark (which measures decryption alone) call it.
    package func decryptPayload(_ token: ApplePayPaymentToken, merchant: MerchantIdentity) throws(ApplePayTokenError) -> [UInt8] {
        let key: [UInt8]
        switch merchant.privateKey {
        case .ec(let privateKey):
            guard token.version == .ecV1, let ephemeralDER = token.header.ephemeralPublicKey,
                let partyV = merchant.merchantIdentifierHash
            else {
                throw .versionDoesNotMatchKey(version: token.version, keyKind: privateKey.key.kindDescription)
            }
            let sharedSecret = try Self.sharedSecret(privateKey, ephemeralPublicKeyDER: ephemeralDER)
            key = TokenKeyDerivation.symmetricKey(sharedSecret: sharedSecret, partyV: partyV)
        case .rsa(let privateKey):
            guard token.version == .rsaV1, let wrappedKey = token.header.wrappedKey else {
                throw .versionDoesNotMatchKey(version: token.version, keyKind: privateKey.key.kindDescription)
            }
            let unwrapped: [UInt8]?
            do {
                unwrapped = try RSAOAEP.decrypt(wrappedKey, with: privateKey.key)
            } catch {
                throw .cryptoFailure(error)
            }
            // A wrong-length key is reported exactly like a padding failure: one answer for
            // every way unwrapping can fail.
            guard let unwrapped, unwrapped.count == 16 else { throw .keyUnwrapFailed }
            key = unwrapped
        }
        let plaintext: [UInt8]?
        do {
            plaintext = try AESGCM.open(token.data, key: key)
        } catch {
            throw .cryptoFailure(error)
        }
        guard let plaintext else { throw .decryptionFailed }
        return plaintext
    }

    /// ECDH with the token's ephemeral key. The usual encoding (uncompressed point on P-256)
    /// goes through the peer key pool; anything else through OpenSSL's general decoder.
    private static func sharedSecret(_ privateKey: ECPrivateKey, ephemeralPublicKeyDER der: [UInt8]) throws(ApplePayTokenError) -> [UInt8] {
        let prefix = P256.subjectPublicKeyInfoPrefix
        if der.count == prefix.count + P256.uncompressedPointByteCount, der.starts(with: prefix) {
            do {
                return try P256PeerKeyPool.shared.sharedSecret(privateKey: privateKey.key, peerPoint: Array(der[prefix.count...]))
            } catch {
                throw .ephemeralKeyInvalid(reason: error.reason)
            }
        }
        let ephemeral: ECPublicKey
        do {
            ephemeral = try ECPublicKey(derRepresentation: der)
        } catch {
            throw .ephemeralKeyInvalid(reason: error.message)
        }
        do {
            return try privateKey.sharedSecret(with: ephemeral)
        } catch {
            throw .cryptoFailure(error)
        }
    }
}
