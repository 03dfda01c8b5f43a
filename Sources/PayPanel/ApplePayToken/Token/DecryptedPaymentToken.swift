import Foundation

/// The decrypted payment data of a verified token, typed.
///
/// Holds the device account number and the cryptogram: hand them to the processor and nothing
/// else. `description`, `debugDescription` and reflection (`dump`, string interpolation) show
/// only the network, the last four digits, the expiry and the amount.
public struct DecryptedPaymentToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `paymentDataType`: what `paymentData` holds.
    public enum PaymentDataType: String, Sendable {
        /// An online payment cryptogram (and maybe an ECI): what card processors authorize.
        case threeDSecure = "3DSecure"
        /// EMV data and encrypted PIN data (China UnionPay).
        case emv = "EMV"
    }

    public let version: PaymentTokenVersion
    /// The header's transactionId, lower-case hex: the replay key.
    public let transactionId: String
    /// The merchant identifier of the certificate the token was encrypted to, when it has one.
    public let merchantIdentifier: String?
    /// The CMS signing time, when known.
    public let signingTime: Date?
    /// Production or sandbox: which Apple Pay environment signed the token.
    public let environment: ApplePayEnvironment
    /// `applicationPrimaryAccountNumber`: the device account number (DPAN).
    public let dpan: CardNumber
    /// `applicationExpirationDate` (YYMMDD) as month and year.
    public let expiry: CardExpiry
    /// `transactionAmount` (minor units) in `currencyCode` (ISO 4217 numeric).
    public let amount: Amount
    public let cardholderName: String?
    public let deviceManufacturerIdentifier: String
    public let paymentDataType: PaymentDataType
    /// `paymentData.onlinePaymentCryptogram` (3DSecure only).
    public let cryptogram: Cryptogram?
    /// `paymentData.eciIndicator`, when the network sends one.
    public let eci: String?
    /// The exact decrypted bytes (JSON). Contains the DPAN and the cryptogram: never log or store.
    public let plaintext: [UInt8]
    /// `plaintext` parsed, keys in order and numbers as written (for `paypanel token decrypt`).
    public let plaintextJSON: JSONValue

    /// Throws `currencyMismatch` or `amountMismatch` unless the token is for exactly `expected`.
    public func checkAmount(matches expected: Amount) throws(ApplePayTokenError) {
        guard amount.currency == expected.currency else {
            throw .currencyMismatch(token: amount.currency, expected: expected.currency)
        }
        guard amount.minorUnits == expected.minorUnits else { throw .amountMismatch(token: amount, expected: expected) }
    }

    /// What the processor authorizes: the DPAN as a network token with its cryptogram and ECI.
    public func paymentMethodData(holderName: String? = nil) throws(ApplePayTokenError) -> PaymentMethodData {
        guard paymentDataType == .threeDSecure, let cryptogram else {
            throw .paymentDataTypeUnsupported(paymentDataType.rawValue)
        }
        return .networkToken(dpan: dpan, expiry: expiry, cryptogram: cryptogram, eci: eci, holderName: holderName ?? cardholderName)
    }

    /// `EC_v1 token 4e2a…: visa •••• 4242 exp 12/29, 10.00 USD, 3DSecure, ECI 05`.
    public var description: String {
        let network = dpan.network?.rawValue ?? "card"
        let eciText = eci.map { ", ECI \($0)" } ?? ""
        return "\(version.rawValue) token \(transactionId.prefix(8))…: \(network) \(dpan) exp \(expiry), \(amount), \(paymentDataType.rawValue)\(eciText)"
    }

    public var debugDescription: String { "DecryptedPaymentToken(\(description))" }

    public var customMirror: Mirror {
        Mirror(self, children: ["summary": description], displayStyle: .struct)
    }
}

extension DecryptedPaymentToken {
    /// Reads Apple's decrypted payment data JSON. Field errors name the field, never its value.
    init(plaintext: [UInt8], verified: VerifiedPaymentToken) throws(ApplePayTokenError) {
        try self.init(plaintext: plaintext, token: verified.token, merchant: verified.merchant, signingTime: verified.signingTime,
            environment: verified.environment)
    }

    package init(
        plaintext: [UInt8], token: ApplePayPaymentToken, merchant: MerchantIdentity, signingTime: Date?,
        environment: ApplePayEnvironment = .production
    ) throws(ApplePayTokenError) {
        let document: JSONValue
        do {
            document = try JSONParser().parse(plaintext)
        } catch {
            throw .plaintextMalformed(field: "text", reason: "is not JSON (line \(error.line), column \(error.column))")
        }
        guard let object = document.objectValue else {
            throw .plaintextMalformed(field: "text", reason: "is \(document.typeDescription), not an object")
        }
        func string(_ key: String, in object: JSONObject = object, prefix: String = "") throws(ApplePayTokenError) -> String {
            guard let value = object[key] else { throw .plaintextMalformed(field: "'\(prefix)\(key)'", reason: "is missing") }
            guard let text = value.stringValue else {
                throw .plaintextMalformed(field: "'\(prefix)\(key)'", reason: "is \(value.typeDescription), not a string")
            }
            return text
        }

        let accountNumber = try string("applicationPrimaryAccountNumber")
        do {
            dpan = try CardNumber(accountNumber)
        } catch {
            throw .plaintextMalformed(field: "'applicationPrimaryAccountNumber'", reason: "is not 12 to 19 digits that pass the Luhn check")
        }
        expiry = try Self.expiry(try string("applicationExpirationDate"))

        let currencyText = try string("currencyCode")
        guard currencyText.utf8.count == 3, Self.isDigits(currencyText), let numeric = Int(currencyText),
            let currency = try? Currency(numericCode: numeric)
        else {
            throw .plaintextMalformed(field: "'currencyCode'", reason: "is not an ISO 4217 numeric payment currency code")
        }
        guard let amountValue = object["transactionAmount"] else {
            throw .plaintextMalformed(field: "'transactionAmount'", reason: "is missing")
        }
        guard let minorUnits = amountValue.int64Value, minorUnits >= 0 else {
            throw .plaintextMalformed(field: "'transactionAmount'", reason: "is not a whole non-negative number of minor units")
        }
        amount = Amount(minorUnits: minorUnits, currency: currency)
        cardholderName = object["cardholderName"]?.stringValue
        deviceManufacturerIdentifier = try string("deviceManufacturerIdentifier")

        let typeText = try string("paymentDataType")
        guard let type = PaymentDataType(rawValue: typeText) else {
            throw .plaintextMalformed(field: "'paymentDataType'", reason: "is neither 3DSecure nor EMV")
        }
        paymentDataType = type
        guard let paymentData = object["paymentData"]?.objectValue else {
            throw .plaintextMalformed(field: "'paymentData'", reason: "is missing or not an object")
        }
        switch type {
        case .threeDSecure:
            let cryptogramText = try string("onlinePaymentCryptogram", in: paymentData, prefix: "paymentData.")
            guard !cryptogramText.isEmpty, Base64.decode(cryptogramText) != nil else {
                throw .plaintextMalformed(field: "'paymentData.onlinePaymentCryptogram'", reason: "is not base64")
            }
            cryptogram = Cryptogram(cryptogramText, generatedAt: signingTime)  // the token was made when it was signed
            if let value = paymentData["eciIndicator"], value != .null {
                guard let text = value.stringValue, (1...2).contains(text.utf8.count), Self.isDigits(text) else {
                    throw .plaintextMalformed(field: "'paymentData.eciIndicator'", reason: "is not a one- or two-digit string")
                }
                eci = text
            } else {
                eci = nil
            }
        case .emv:
            cryptogram = nil
            eci = nil
        }

        version = token.version
        transactionId = token.header.transactionId
        merchantIdentifier = merchant.merchantIdentifier
        self.signingTime = signingTime
        self.environment = environment
        self.plaintext = plaintext
        plaintextJSON = document
    }

    /// True when every character is an ASCII digit (by bytes: Character properties are slow).
    private static func isDigits(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// `YYMMDD` (Apple uses the last day of the month) → month and year.
    private static func expiry(_ text: String) throws(ApplePayTokenError) -> CardExpiry {
        let digits = Array(text.utf8)
        guard digits.count == 6, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .plaintextMalformed(field: "'applicationExpirationDate'", reason: "is not a YYMMDD date")
        }
        let value = { (index: Int) in Int(digits[index] - 0x30) * 10 + Int(digits[index + 1] - 0x30) }
        guard (1...31).contains(value(4)), let expiry = try? CardExpiry(month: value(2), year: 2000 + value(0)) else {
            throw .plaintextMalformed(field: "'applicationExpirationDate'", reason: "is not a YYMMDD date")
        }
        return expiry
    }
}
