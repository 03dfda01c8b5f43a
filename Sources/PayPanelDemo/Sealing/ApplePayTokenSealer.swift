import Foundation
import PayPanel

/// The device side of Apple Pay, for tests and the demo: encrypts a test card's payment data
/// to a merchant certificate and signs it with a signing chain, exactly as Apple's servers
/// build real tokens, so the backend's verification runs unchanged on them.
///
/// Randomness (the cryptogram, the ephemeral EC key, the RSA_v1 AES key, the transactionId)
/// comes from the injected source and the signing time from the injected clock. ECDSA and
/// OAEP padding still draw on OpenSSL's own generator, so token bytes differ run to run.
public struct ApplePayTokenSealer: Sendable {
    public let signer: TokenSigningIdentity
    public let random: any RandomByteSource
    public let clock: any WallClock

    public init(signer: TokenSigningIdentity, random: any RandomByteSource = SystemRandomBytes(), clock: any WallClock) {
        self.signer = signer
        self.random = random
        self.clock = clock
    }

    /// Makes a token for `details` that only the holder of `merchant`'s key can decrypt.
    /// EC_v1 needs an EC P-256 merchant certificate with the merchant identifier extension,
    /// RSA_v1 an RSA one.
    public func seal(
        _ details: TokenCardDetails, to merchant: Certificate, version: PaymentTokenVersion = .ecV1, applicationData: [UInt8]? = nil
    ) throws(TokenSealingError) -> SealedPaymentToken {
        let cryptogram = Base64.encode(random.bytes(20))
        let plaintext = Array(JSONWriter.string(details.plaintextJSON(cryptogram: cryptogram)).utf8)
        let network = details.dpan.network
        let paymentMethod = ApplePayPaymentToken.PaymentMethodInfo(
            displayName: "\(network.map(Self.passKitName) ?? "Card") \(details.dpan.last4)",
            network: network.map(Self.passKitName), type: "debit")
        let token = try seal(plaintext: plaintext, to: merchant, version: version, applicationData: applicationData, paymentMethod: paymentMethod)
        return SealedPaymentToken(token: token)
    }

    /// Encrypts any `plaintext` (tests use malformed ones) and signs the result. `ephemeralKey`
    /// replaces the random EC_v1 ephemeral key (tests pick one whose shared secret starts with 0).
    package func seal(
        plaintext: [UInt8], to merchant: Certificate, version: PaymentTokenVersion, applicationData: [UInt8]? = nil,
        paymentMethod: ApplePayPaymentToken.PaymentMethodInfo? = nil, ephemeralKey: ECPrivateKey? = nil
    ) throws(TokenSealingError) -> ApplePayPaymentToken {
        let merchantKey: EVPKey
        let publicKeyHash: [UInt8]
        do {
            merchantKey = try merchant.publicKey
            publicKeyHash = SHA256.hash(try merchant.subjectPublicKeyInfoDER)
        } catch {
            throw .crypto(error)
        }
        let transactionId = random.bytes(32)
        var ephemeralPublicKey: [UInt8]?
        var wrappedKey: [UInt8]?
        let data: [UInt8]
        do {
            switch version {
            case .ecV1:
                guard merchantKey.isEC, merchantKey.groupName == P256.groupName else {
                    throw TokenSealingError.wrongMerchantKey(version: version, keyKind: merchantKey.kindDescription)
                }
                guard let partyV = try MerchantIdentity.merchantIdentifierHash(of: merchant) else {
                    throw TokenSealingError.keyMaterial(.missingMerchantIdentifier(certificate: merchant.subject))
                }
                let ephemeral = ephemeralKey ?? ECPrivateKey.generateP256(using: random)
                let sharedSecret = try P256.sharedSecret(privateKey: ephemeral.key, peer: merchantKey)
                let key = TokenKeyDerivation.symmetricKey(sharedSecret: sharedSecret, partyV: partyV)
                data = try AESGCM.seal(plaintext, key: key)
                ephemeralPublicKey = ephemeral.publicKey.derRepresentation
            case .rsaV1:
                guard merchantKey.isRSA else {
                    throw TokenSealingError.wrongMerchantKey(version: version, keyKind: merchantKey.kindDescription)
                }
                let key = random.bytes(16)
                wrappedKey = try RSAOAEP.encrypt(key, to: merchantKey)
                data = try AESGCM.seal(plaintext, key: key)
            }
        } catch let error as TokenSealingError {
            throw error
        } catch let error as KeyMaterialError {
            throw .keyMaterial(error)
        } catch let error as OpenSSLError {
            throw .crypto(error)
        } catch {
            throw .crypto(OpenSSLError(operation: "sealing the token", reason: "\(error)"))
        }
        let header = ApplePayPaymentToken.Header(
            ephemeralPublicKey: ephemeralPublicKey, wrappedKey: wrappedKey, publicKeyHash: publicKeyHash,
            transactionId: transactionId.hexString, applicationData: applicationData)
        let unsigned = ApplePayPaymentToken(version: version, data: data, signature: [], header: header, paymentMethod: paymentMethod)
        return try signed(unsigned)
    }

    /// When a test signature says it was made.
    package enum SigningTime {
        /// The sealer's clock.
        case clock
        case at(Date)
        /// No signed attributes at all, hence no signing time (Apple always sends one).
        case omitted
    }

    /// `token` with a fresh signature over its header and data by this sealer's signer. Tests
    /// use it to make validly signed tokens with broken contents.
    package func signed(_ token: ApplePayPaymentToken, signingTime: SigningTime = .clock) throws(TokenSealingError) -> ApplePayPaymentToken {
        let time: Date?
        switch signingTime {
        case .clock: time = clock.now()
        case .at(let date): time = date
        case .omitted: time = nil
        }
        do {
            let signature = try CMSSignedData.signDetached(
                token.signedContent, signer: signer.certificate, key: signer.privateKey.key, chain: [signer.intermediate], signingTime: time)
            return ApplePayPaymentToken(
                version: token.version, data: token.data, signature: signature, header: token.header, paymentMethod: token.paymentMethod)
        } catch {
            throw .crypto(error)
        }
    }

    /// PKPaymentNetwork's spelling, as `paymentMethod.network` carries it.
    private static func passKitName(_ network: PaymentNetwork) -> String {
        switch network {
        case .visa: "Visa"
        case .masterCard: "MasterCard"
        case .amex: "AmEx"
        case .discover: "Discover"
        case .jcb: "JCB"
        case .chinaUnionPay: "ChinaUnionPay"
        default: network.rawValue.prefix(1).uppercased() + network.rawValue.dropFirst()
        }
    }
}

/// A token made by `ApplePayTokenSealer`, with the JSON a device would send.
public struct SealedPaymentToken: Sendable {
    public let token: ApplePayPaymentToken

    package init(token: ApplePayPaymentToken) {
        self.token = token
    }

    /// The whole PKPaymentToken: `{"paymentData": …, "paymentMethod": …, "transactionIdentifier": …}`.
    /// PassKit's transactionIdentifier is the header's transactionId in upper-case hex.
    public var paymentTokenJSON: JSONValue {
        var paymentMethod = JSONObject()
        if let info = token.paymentMethod {
            paymentMethod["displayName"] = .optional(info.displayName)
            paymentMethod["network"] = .optional(info.network)
            paymentMethod["type"] = .optional(info.type)
        }
        return [
            "paymentData": token.paymentDataJSON,
            "paymentMethod": .object(paymentMethod),
            "transactionIdentifier": .string(token.header.transactionId.uppercased()),
        ]
    }

    /// Just the `paymentData` object.
    public var paymentDataJSON: JSONValue { token.paymentDataJSON }
}

/// Why a token could not be sealed.
public enum TokenSealingError: PayPanelError, Equatable {
    case wrongMerchantKey(version: PaymentTokenVersion, keyKind: String)
    case keyMaterial(KeyMaterialError)
    case crypto(OpenSSLError)

    public var code: String {
        switch self {
        case .wrongMerchantKey: "token_seal_wrong_merchant_key"
        case .keyMaterial(let error): error.code
        case .crypto: "token_seal_failed"
        }
    }

    public var message: String {
        switch self {
        case .wrongMerchantKey(let version, let kind):
            "cannot seal an \(version.rawValue) token to a merchant certificate with \(kind): "
                + "EC_v1 needs an EC P-256 certificate, RSA_v1 an RSA one (choose --version or --merchant-cert)"
        case .keyMaterial(let error): error.message
        case .crypto(let error): "sealing the token failed: \(error.message)"
        }
    }
}
