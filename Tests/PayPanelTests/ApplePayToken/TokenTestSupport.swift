import Foundation
import TestSupport

@testable import PayPanel
import PayPanelDemo

/// Shared fixtures for the Apple Pay token tests: the test keys, a fixed signing time, sealing
/// with a repeatable random source, and JSON surgery on tokens.
enum TokenFixtures {
    /// Every sealed test token is signed at this time and verified at (or near) it.
    static let signingTime = date("2026-11-29T12:00:00Z")
    static let dpanDigits = "4242424242424242"

    static func date(_ text: String) -> Date {
        guard let date = try? Timestamp.parse(text) else { fatalError("bad test date \(text)") }
        return date
    }

    static func fixtureText(_ name: String) throws -> String {
        try RepositoryPaths.contents(ofFixture: "keys/\(name)")
    }

    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(pemRepresentation: fixtureText(name))
    }

    static func merchant(_ certificateName: String, _ keyName: String) throws -> MerchantIdentity {
        try MerchantIdentity(certificatePEM: fixtureText(certificateName), privateKeyPEM: fixtureText(keyName))
    }

    static var ecMerchant: MerchantIdentity { ApplePayTestKeys.ecMerchant }
    static var rsaMerchant: MerchantIdentity { ApplePayTestKeys.rsaMerchant }

    static func sealer(seed: String = "tests", at time: Date = signingTime, signer: TokenSigningIdentity = ApplePayTestKeys.signer)
        -> ApplePayTokenSealer
    {
        ApplePayTokenSealer(signer: signer, random: SeededRandomBytes(seed: seed), clock: ManualClock(time))
    }

    static func details(amount: Int64 = 1000, currency: String = "USD", eci: String? = "05", holder: String? = nil) throws
        -> TokenCardDetails
    {
        TokenCardDetails(
            dpan: try CardNumber(dpanDigits), expiry: try CardExpiry(month: 12, year: 2029),
            amount: Amount(minorUnits: amount, currency: try Currency(code: currency)), eci: eci, cardholderName: holder)
    }

    /// A sealed whole PKPaymentToken as JSON bytes.
    static func sealedJSON(
        version: PaymentTokenVersion = .ecV1, seed: String = "tests", amount: Int64 = 1000, to merchant: Certificate? = nil
    ) throws -> [UInt8] {
        let recipient = merchant ?? (version == .ecV1 ? ecMerchant : rsaMerchant).certificate
        let sealed = try sealer(seed: seed).seal(try details(amount: amount), to: recipient, version: version)
        return json(sealed.paymentTokenJSON)
    }

    static func json(_ value: JSONValue) -> [UInt8] {
        Array(JSONWriter.string(value).utf8)
    }

    static func json(_ token: ApplePayPaymentToken) -> [UInt8] {
        json(token.paymentDataJSON)
    }

    static func decryptor(
        merchants: [MerchantIdentity] = [ApplePayTestKeys.ecMerchant, ApplePayTestKeys.rsaMerchant],
        root: Certificate = ApplePayTestKeys.root, window: TimeInterval = 300, checksTime: Bool = true
    ) throws -> ApplePayTokenDecryptor {
        ApplePayTokenDecryptor(
            verifier: try ApplePayTokenVerifier(merchants: merchants, trustedRoot: root, signingTimeWindow: window, checksSigningTime: checksTime))
    }

    /// `bytes` (a JSON object) with the member at `path` (dotted) replaced by `value`, or
    /// removed when `value` is nil.
    static func replacing(_ path: String, with value: JSONValue?, in bytes: [UInt8]) throws -> [UInt8] {
        func replace(_ keys: ArraySlice<Substring>, in value: JSONValue) -> JSONValue {
            guard var object = value.objectValue, let key = keys.first.map(String.init) else { return value }
            if keys.count == 1 {
                object[key] = nil
                if let replacement = newValue { object[key] = replacement }
            } else if let inner = object[key] {
                object[key] = replace(keys.dropFirst(), in: inner)
            }
            return .object(object)
        }
        let newValue = value
        return json(replace(path.split(separator: ".")[...], in: try JSONParser().parse(bytes)))
    }

    /// The string at `path` (dotted) of a JSON object.
    static func string(_ path: String, in bytes: [UInt8]) throws -> String? {
        var value: JSONValue? = try JSONParser().parse(bytes)
        for key in path.split(separator: ".") { value = value?[String(key)] }
        return value?.stringValue
    }
}

/// The token error `body` throws, or nil (any other error fails the test through `#require`).
func tokenError(_ body: () throws -> Void) -> ApplePayTokenError? {
    do {
        try body()
        return nil
    } catch let error as ApplePayTokenError {
        return error
    } catch {
        return .cryptoFailure(OpenSSLError(operation: "unexpected error", reason: "\(error)"))
    }
}
