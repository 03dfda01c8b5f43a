import Foundation
import PayPanel
import PayPanelDemo

/// The three operations `paypanel bench token` times, on EC_v1 tokens sealed to the test
/// merchant (the CLI owns the clock and the loop; the library never reads time itself):
///
/// - `deriveSharedSecret`: the raw OpenSSL ECDH P-256 derive, merchant key × an already
///   parsed ephemeral key. No token can be decrypted faster than this: the ceiling.
/// - `decrypt`: everything a token costs except the signature: parse the JSON, pick the merchant
///   key, import the ephemeral key, ECDH, KDF, AES-256-GCM, parse and type the plaintext.
/// - `verifyAndDecrypt`: what a payment pays, `ApplePayTokenDecryptor.decrypt(_:at:)`.
public final class TokenBenchmarkWorkload {
    private let tokens: [[UInt8]]
    private let parsedEphemeralKeys: [ECPublicKey]
    private let merchant: MerchantIdentity
    private let merchantKey: ECPrivateKey
    private let decryptor: ApplePayTokenDecryptor
    private let verificationTime: Date

    /// Seals `distinctTokens` tokens (sealing costs a few ECDH operations each, so a small pool
    /// is reused) signed at `date`.
    public init(distinctTokens: Int, at date: Date) throws {
        merchant = ApplePayTestKeys.ecMerchant
        guard case .ec(let key) = merchant.privateKey else { preconditionFailure("the test EC merchant has an EC key") }
        merchantKey = key
        verificationTime = date
        decryptor = ApplePayTokenDecryptor(verifier: ApplePayTestKeys.verifier())
        let sealer = ApplePayTokenSealer(signer: ApplePayTestKeys.signer, clock: ManualClock(date))
        let amount = Amount(minorUnits: 1000, currency: try Currency(code: "USD"))
        let details = TokenCardDetails(
            dpan: try CardNumber("4242424242424242"), expiry: try CardExpiry(month: 12, year: 2030), amount: amount, eci: "05")
        var tokens: [[UInt8]] = []
        var keys: [ECPublicKey] = []
        for _ in 0..<max(1, distinctTokens) {
            let sealed = try sealer.seal(details, to: merchant.certificate, version: .ecV1)
            tokens.append(Array(JSONWriter.string(sealed.paymentTokenJSON).utf8))
            keys.append(try ECPublicKey(derRepresentation: sealed.token.header.ephemeralPublicKey ?? []))
        }
        self.tokens = tokens
        parsedEphemeralKeys = keys
    }

    /// Size of one token's JSON, for the report.
    public var tokenByteCount: Int { tokens.first?.count ?? 0 }

    /// One raw ECDH derive (the ceiling).
    public func deriveSharedSecret(_ iteration: Int) throws {
        _ = try merchantKey.sharedSecret(with: parsedEphemeralKeys[iteration % parsedEphemeralKeys.count])
    }

    /// One token decrypted without signature verification.
    public func decrypt(_ iteration: Int) throws {
        let token = try ApplePayPaymentToken(json: tokens[iteration % tokens.count])
        let merchant = try decryptor.verifier.merchant(for: token)
        let plaintext = try decryptor.decryptPayload(token, merchant: merchant)
        _ = try DecryptedPaymentToken(plaintext: plaintext, token: token, merchant: merchant, signingTime: nil)
    }

    /// One token verified and decrypted.
    public func verifyAndDecrypt(_ iteration: Int) throws {
        _ = try decryptor.decrypt(tokens[iteration % tokens.count], at: verificationTime)
    }
}

/// The figures of one `paypanel bench token` run.
public struct TokenBenchmarkResult: Sendable, JSONRepresentable {
    public let count: Int
    public let ecdhPerSecond: Double
    public let decryptPerSecond: Double
    public let verifyDecryptPerSecond: Double

    /// Decryption rate as a fraction of the raw ECDH rate (the target is ≥ 0.8).
    public let decryptRatio: Double
    /// Verification plus decryption as a fraction of the raw ECDH rate.
    public let verifyDecryptRatio: Double

    /// The ratios are passed in rather than divided here: the benchmark takes the median of
    /// per-round ratios, which is steadier than a ratio of medians.
    public init(
        count: Int, ecdhPerSecond: Double, decryptPerSecond: Double, verifyDecryptPerSecond: Double, decryptRatio: Double,
        verifyDecryptRatio: Double
    ) {
        self.count = count
        self.ecdhPerSecond = ecdhPerSecond
        self.decryptPerSecond = decryptPerSecond
        self.verifyDecryptPerSecond = verifyDecryptPerSecond
        self.decryptRatio = decryptRatio
        self.verifyDecryptRatio = verifyDecryptRatio
    }

    /// `{"count", "decryptPerSecond", "verifyDecryptPerSecond", "ecdhPerSecond", "decryptRatio"}`:
    /// rates as whole operations per second, the ratio with three decimals.
    public var json: JSONValue {
        [
            "count": .number(count),
            "decryptPerSecond": .number(Int64(decryptPerSecond.rounded())),
            "verifyDecryptPerSecond": .number(Int64(verifyDecryptPerSecond.rounded())),
            "ecdhPerSecond": .number(Int64(ecdhPerSecond.rounded())),
            "decryptRatio": .number(JSONNumber(validatedLiteral: Self.threeDecimals(decryptRatio))),
        ]
    }

    /// `0.912` (a JSON number literal; never exponent notation).
    static func threeDecimals(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
