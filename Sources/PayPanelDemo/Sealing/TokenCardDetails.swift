import PayPanel
/// What a device puts in a token: the card (a device account number), the amount the payer
/// approved, and the authentication data. Used to seal test tokens.
public struct TokenCardDetails: Sendable {
    public var dpan: CardNumber
    public var expiry: CardExpiry
    public var amount: Amount
    /// Electronic Commerce Indicator ("05", "07"…); some networks send none.
    public var eci: String?
    public var cardholderName: String?
    /// Identifies the device's secure element; any 12 hex digits do for tests.
    public var deviceManufacturerIdentifier: String

    public init(
        dpan: CardNumber, expiry: CardExpiry, amount: Amount, eci: String? = nil, cardholderName: String? = nil,
        deviceManufacturerIdentifier: String = "040010030273"
    ) {
        self.dpan = dpan
        self.expiry = expiry
        self.amount = amount
        self.eci = eci
        self.cardholderName = cardholderName
        self.deviceManufacturerIdentifier = deviceManufacturerIdentifier
    }

    /// The plaintext JSON Apple encrypts, with `cryptogram` as the online payment cryptogram.
    package func plaintextJSON(cryptogram: String) -> JSONValue {
        var paymentData: JSONObject = JSONObject([("onlinePaymentCryptogram", .string(cryptogram))])
        if let eci { paymentData["eciIndicator"] = .string(eci) }
        let year = expiry.year % 100
        // Apple writes the last day of the expiry month.
        let lastDay = [31, (expiry.year % 4 == 0 && expiry.year % 100 != 0) || expiry.year % 400 == 0 ? 29 : 28,
                       31, 30, 31, 30, 31, 31, 30, 31, 30, 31][expiry.month - 1]
        var object = JSONObject([
            ("applicationPrimaryAccountNumber", .string(dpan.digits)),
            ("applicationExpirationDate", .string(Self.twoDigits(year) + Self.twoDigits(expiry.month) + Self.twoDigits(lastDay))),
            ("currencyCode", .string(Self.threeDigits(amount.currency.numericCode))),
            ("transactionAmount", .number(amount.minorUnits)),
        ])
        if let cardholderName { object["cardholderName"] = .string(cardholderName) }
        object["deviceManufacturerIdentifier"] = .string(deviceManufacturerIdentifier)
        object["paymentDataType"] = .string(DecryptedPaymentToken.PaymentDataType.threeDSecure.rawValue)
        object["paymentData"] = .object(paymentData)
        return .object(object)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private static func threeDigits(_ value: Int) -> String { String(repeating: "0", count: max(0, 3 - String(value).count)) + String(value) }
}
