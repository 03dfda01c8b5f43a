import Foundation

/// What the in-notification payment panel offers: who is paid, in what currency and country,
/// with which networks, for which product, and the amounts of the segmented control.
/// It is also the `panel` key of the payment-action push payload.
public struct PanelConfig: Sendable, Equatable, JSONRepresentable {
    public var merchantIdentifier: String
    /// The business name shown as "Pay <name>"; when absent the product label is the only item.
    public var merchantName: String?
    public var country: Country
    public var currency: Currency
    public var supportedNetworks: [PaymentNetwork]
    public var merchantCapabilities: MerchantCapabilities
    public var productLabel: String
    /// The segmented control's amounts, in minor units (500 = 5.00 USD).
    public var amountOptions: [Int64]
    /// The segment selected when the panel opens, numbered from 1.
    public var defaultSegment: Int
    /// The merchant's order reference; a second push with the same reference updates the panel.
    public var orderReference: String?
    /// After this moment the panel no longer offers payment.
    public var expiresAt: Date?

    public init(
        merchantIdentifier: String, merchantName: String? = nil, country: Country, currency: Currency,
        supportedNetworks: [PaymentNetwork], merchantCapabilities: MerchantCapabilities, productLabel: String,
        amountOptions: [Int64] = [500, 1000, 2000], defaultSegment: Int = 1, orderReference: String? = nil,
        expiresAt: Date? = nil
    ) {
        self.merchantIdentifier = merchantIdentifier
        self.merchantName = merchantName
        self.country = country
        self.currency = currency
        self.supportedNetworks = supportedNetworks
        self.merchantCapabilities = merchantCapabilities
        self.productLabel = productLabel
        self.amountOptions = amountOptions
        self.defaultSegment = defaultSegment
        self.orderReference = orderReference
        self.expiresAt = expiresAt
    }

    /// The reference panel of Apple's ApplePayAction sample: "Some Product" for 5, 10 or 20 USD.
    public static let seed = PanelConfig(
        merchantIdentifier: "merchant.com.sample.ApplePayAction",
        country: try! Country(alpha2: "US"),
        currency: try! Currency(code: "USD"),
        supportedNetworks: [.visa, .masterCard, .amex],
        merchantCapabilities: .threeDSecure,
        productLabel: "Some Product")

    /// A selector on this panel's amounts with the default segment selected.
    public func makeSelector() throws(PanelError) -> AmountSelector {
        try AmountSelector(options: amountOptions.map { Amount(minorUnits: $0, currency: currency) },
                           defaultSegment: defaultSegment)
    }

    public var json: JSONValue {
        var object = JSONObject()
        object["merchantIdentifier"] = .string(merchantIdentifier)
        if let merchantName { object["merchantName"] = .string(merchantName) }
        object["countryCode"] = .string(country.alpha2)
        object["currencyCode"] = .string(currency.code)
        object["supportedNetworks"] = .array(supportedNetworks.map { .string($0.rawValue) })
        object["merchantCapabilities"] = .array(merchantCapabilities.canonicalNames.map(JSONValue.string))
        object["productLabel"] = .string(productLabel)
        object["amountOptions"] = .array(amountOptions.map(JSONValue.number))
        object["defaultSegment"] = .number(defaultSegment)
        if let orderReference { object["orderReference"] = .string(orderReference) }
        if let expiresAt { object["expiresAt"] = .string(Timestamp.format(expiresAt)) }
        return .object(object)
    }

    static let jsonKeys: Set<String> = [
        "merchantIdentifier", "merchantName", "countryCode", "currencyCode", "supportedNetworks",
        "merchantCapabilities", "productLabel", "amountOptions", "defaultSegment", "orderReference", "expiresAt",
    ]

    /// The most segments a segmented control in a notification can sensibly show.
    public static let maximumAmountOptions = 5
}
