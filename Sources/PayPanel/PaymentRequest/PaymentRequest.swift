/// An Apple Pay payment request (`PKPaymentRequest` / Apple Pay JS `ApplePayPaymentRequest`),
/// limited to the fields the panel uses.
///
/// Build one from a panel selection (`PaymentRequest(panel:selection:)`) or from JSON with
/// `PaymentRequestValidator.validate(json:)`; both paths go through the same rules.
public struct PaymentRequest: Sendable, Equatable, JSONRepresentable {
    public var merchantIdentifier: String
    public var country: Country
    public var currency: Currency
    public var supportedNetworks: [PaymentNetwork]
    public var merchantCapabilities: MerchantCapabilities
    /// Line items, then the grand total as the last item.
    public var summaryItems: [SummaryItem]

    public init(
        merchantIdentifier: String, country: Country, currency: Currency, supportedNetworks: [PaymentNetwork],
        merchantCapabilities: MerchantCapabilities, summaryItems: [SummaryItem]
    ) {
        self.merchantIdentifier = merchantIdentifier
        self.country = country
        self.currency = currency
        self.supportedNetworks = supportedNetworks
        self.merchantCapabilities = merchantCapabilities
        self.summaryItems = summaryItems
    }

    /// The grand total: the last summary item.
    public var total: SummaryItem? { summaryItems.last }

    /// The JSON form, with Apple Pay JS names (what `request build` prints and `request validate` reads).
    public var json: JSONValue {
        [
            "merchantIdentifier": .string(merchantIdentifier),
            "countryCode": .string(country.alpha2),
            "currencyCode": .string(currency.code),
            "supportedNetworks": .array(supportedNetworks.map { .string($0.rawValue) }),
            "merchantCapabilities": .array(merchantCapabilities.canonicalNames.map(JSONValue.string)),
            "paymentSummaryItems": .array(summaryItems.map(\.json)),
        ]
    }

    /// The top-level keys of the JSON form.
    static let jsonKeys: Set<String> = [
        "merchantIdentifier", "countryCode", "currencyCode", "supportedNetworks", "merchantCapabilities",
        "paymentSummaryItems",
    ]
}
