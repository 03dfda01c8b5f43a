import PayPanel
import TestSupport
import Testing

/// Every rule of the payment request, checked on a JSON document that differs from a valid
/// one in one place.
@Suite struct PaymentRequestValidatorTests {
    /// A valid request with a merchant-named total; `edit` changes one thing.
    static func request(_ edit: (inout JSONObject) -> Void = { _ in }) -> JSONValue {
        var object = JSONObject([
            ("merchantIdentifier", "merchant.com.sample.ApplePayAction"),
            ("countryCode", "US"),
            ("currencyCode", "USD"),
            ("supportedNetworks", ["visa", "masterCard", "amex"]),
            ("merchantCapabilities", ["supports3DS"]),
            ("paymentSummaryItems", [
                ["label": "Some Product", "amount": "10.00", "type": "final"],
                ["label": "Sample Action Store", "amount": "10.00", "type": "final"],
            ]),
        ])
        edit(&object)
        return .object(object)
    }

    static func items(_ items: JSONValue...) -> JSONValue { .array(items) }

    @Test func aMerchantNamedRequestIsValidWithoutWarnings() throws {
        let result = PaymentRequestValidator.validate(json: Self.request())
        #expect(result.report.errors.isEmpty)
        #expect(result.report.warnings.isEmpty)
        let request = try #require(result.request)
        #expect(request.total?.amount?.minorUnits == 1000)
        #expect(request.supportedNetworks == [.visa, .masterCard, .amex])
    }

    @Test func theSeedFixtureIsValidButWarnsAboutItsProductNamedTotal() throws {
        let result = PaymentRequestValidator.validate(data: Array(try RepositoryPaths.contents(ofFixture: "requests/seed.json").utf8))
        #expect(result.report.isValid)
        #expect(result.report.warnings.map(\.path) == ["paymentSummaryItems[0].label"])
        #expect(result.report.warnings.first?.reason.contains("looks like a product") == true)
    }

    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let path: String
        let reason: String
        let edit: @Sendable (inout JSONObject) -> Void
    }

    static let invalidCases: [Case] = [
        Case(description: "missing merchant", path: "merchantIdentifier", reason: "is required") { $0["merchantIdentifier"] = nil },
        Case(description: "empty merchant", path: "merchantIdentifier", reason: "must not be empty") { $0["merchantIdentifier"] = "" },
        Case(description: "merchant not reverse-DNS", path: "merchantIdentifier", reason: "not reverse-DNS") { $0["merchantIdentifier"] = "my shop" },
        Case(description: "merchant with empty label", path: "merchantIdentifier", reason: "not reverse-DNS") { $0["merchantIdentifier"] = "merchant..com" },
        Case(description: "merchant is a number", path: "merchantIdentifier", reason: "must be a string") { $0["merchantIdentifier"] = 7 },
        Case(description: "lower-case country", path: "countryCode", reason: "upper case") { $0["countryCode"] = "us" },
        Case(description: "alpha-3 country", path: "countryCode", reason: "alpha-3") { $0["countryCode"] = "USA" },
        Case(description: "unknown country", path: "countryCode", reason: "not an ISO 3166-1") { $0["countryCode"] = "XX" },
        Case(description: "lower-case currency", path: "currencyCode", reason: "upper case") { $0["currencyCode"] = "usd" },
        Case(description: "four-letter currency", path: "currencyCode", reason: "3 upper-case letters") { $0["currencyCode"] = "USDD" },
        Case(description: "unknown currency", path: "currencyCode", reason: "not an ISO 4217") { $0["currencyCode"] = "XBT" },
        Case(description: "gold", path: "currencyCode", reason: "no minor unit") { $0["currencyCode"] = "XAU" },
        Case(description: "no networks", path: "supportedNetworks", reason: "at least one network") { $0["supportedNetworks"] = [] },
        Case(description: "unknown network", path: "supportedNetworks[1]", reason: "unknown payment network") { $0["supportedNetworks"] = ["visa", "diners"] },
        Case(description: "network not a string", path: "supportedNetworks[0]", reason: "must be a string") { $0["supportedNetworks"] = [1] },
        Case(description: "networks not an array", path: "supportedNetworks", reason: "must be an array") { $0["supportedNetworks"] = "visa" },
        Case(description: "no capabilities", path: "merchantCapabilities", reason: "at least one capability") { $0["merchantCapabilities"] = [] },
        Case(description: "no 3DS", path: "merchantCapabilities", reason: "must include supports3DS") { $0["merchantCapabilities"] = ["supportsCredit"] },
        Case(description: "EMV alone with visa", path: "merchantCapabilities", reason: "only allowed when chinaUnionPay") { $0["merchantCapabilities"] = ["supportsEMV"] },
        Case(description: "unknown capability", path: "merchantCapabilities[1]", reason: "unknown capability") { $0["merchantCapabilities"] = ["supports3DS", "supportsMagic"] },
        Case(description: "capability in wrong case", path: "merchantCapabilities[0]", reason: "write \"supports3DS\"") { $0["merchantCapabilities"] = ["Supports3ds"] },
        Case(description: "no items", path: "paymentSummaryItems", reason: "at least one item") { $0["paymentSummaryItems"] = [] },
        Case(description: "missing items", path: "paymentSummaryItems", reason: "is required") { $0["paymentSummaryItems"] = nil },
        Case(description: "item not an object", path: "paymentSummaryItems[0]", reason: "must be an object") { $0["paymentSummaryItems"] = items("x") },
        Case(description: "amount as JSON number", path: "paymentSummaryItems[0].amount", reason: #"write "10.00""#) { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": 10]) },
        Case(description: "amount with exponent", path: "paymentSummaryItems[0].amount", reason: "exponent") { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": "1e3"]) },
        Case(description: "amount finer than cents", path: "paymentSummaryItems[0].amount", reason: "3 decimal places") { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": "0.999"]) },
        Case(description: "negative total", path: "paymentSummaryItems[0].amount", reason: "may not be negative") { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": "-1.00"]) },
        Case(description: "negative zero total", path: "paymentSummaryItems[0].amount", reason: "minus sign") { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": "-0"]) },
        Case(description: "total above maximum", path: "paymentSummaryItems[0].amount", reason: "above the maximum") { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": "100000000.01"]) },
        Case(description: "line item above maximum", path: "paymentSummaryItems[0].amount", reason: "above the maximum") { $0["paymentSummaryItems"] = items(["label": "Thing", "amount": "-100000000.01"], ["label": "Shop", "amount": "1.00"]) },
        Case(description: "empty total label", path: "paymentSummaryItems[0].label", reason: "Pay <label>") { $0["paymentSummaryItems"] = items(["label": " ", "amount": "1.00"]) },
        Case(description: "empty line label", path: "paymentSummaryItems[0].label", reason: "must not be empty") { $0["paymentSummaryItems"] = items(["label": "", "amount": "1.00"], ["label": "Shop", "amount": "1.00"]) },
        Case(description: "missing label", path: "paymentSummaryItems[0].label", reason: "is required") { $0["paymentSummaryItems"] = items(["amount": "1.00"]) },
        Case(description: "pending total without amount", path: "paymentSummaryItems[0].amount", reason: "required on the total") { $0["paymentSummaryItems"] = items(["label": "Shop", "type": "pending"]) },
        Case(description: "final line item without amount", path: "paymentSummaryItems[0].amount", reason: "is required") { $0["paymentSummaryItems"] = items(["label": "Tax"], ["label": "Shop", "amount": "1.00"]) },
        Case(description: "unknown item type", path: "paymentSummaryItems[0].type", reason: "\"final\" or \"pending\"") { $0["paymentSummaryItems"] = items(["label": "Shop", "amount": "1.00", "type": "estimate"]) },
    ]

    @Test(arguments: invalidCases)
    func reportsTheViolationAtItsPath(testCase: Case) {
        let result = PaymentRequestValidator.validate(json: Self.request(testCase.edit))
        #expect(result.request == nil)
        #expect(result.report.errors.contains { $0.path == testCase.path && $0.reason.contains(testCase.reason) },
                "\(result.report.errors)")
    }

    @Test func reportsEveryViolationAtOnce() {
        let result = PaymentRequestValidator.validate(json: Self.request { object in
            object["countryCode"] = "us"
            object["currencyCode"] = "XBT"
            object["merchantCapabilities"] = ["supportsCredit"]
            object["paymentSummaryItems"] = Self.items(["label": "", "amount": "1e3"], ["label": "Total", "amount": 10])
        })
        #expect(Set(result.report.errors.map(\.path)) == [
            "countryCode", "currencyCode", "merchantCapabilities", "paymentSummaryItems[0].amount",
            "paymentSummaryItems[0].label", "paymentSummaryItems[1].amount",
        ])
    }

    struct ValidCase: Sendable, CustomStringConvertible {
        let description: String
        let warningPath: String?
        let edit: @Sendable (inout JSONObject) -> Void
    }

    static let validCases: [ValidCase] = [
        ValidCase(description: "networks in any case are canonicalised", warningPath: nil) { $0["supportedNetworks"] = ["VISA", "mastercard", "Amex", "jcb"] },
        ValidCase(description: "duplicate networks are folded with a warning", warningPath: "supportedNetworks[1]") { $0["supportedNetworks"] = ["visa", "Visa"] },
        ValidCase(description: "PassKit capability names", warningPath: nil) { $0["merchantCapabilities"] = ["capability3DS", "capabilityCredit", "debit"] },
        ValidCase(description: "threeDSecure", warningPath: nil) { $0["merchantCapabilities"] = ["threeDSecure"] },
        ValidCase(description: "duplicate capability warns", warningPath: "merchantCapabilities[1]") { $0["merchantCapabilities"] = ["supports3DS", "capability3DS"] },
        ValidCase(description: "EMV alone with only China UnionPay", warningPath: nil) { object in
            object["supportedNetworks"] = ["chinaUnionPay"]
            object["merchantCapabilities"] = ["supportsEMV"]
        },
        ValidCase(description: "a non-merchant. identifier warns", warningPath: "merchantIdentifier") { $0["merchantIdentifier"] = "com.sample.shop" },
        ValidCase(description: "negative line item (discount)", warningPath: nil) { $0["paymentSummaryItems"] = items(["label": "Discount", "amount": "-2.00"], ["label": "Sample Store", "amount": "8.00"]) },
        ValidCase(description: "pending line item without amount", warningPath: nil) { $0["paymentSummaryItems"] = items(["label": "Shipping", "type": "pending"], ["label": "Sample Store", "amount": "8.00"]) },
        ValidCase(description: "zero total", warningPath: nil) { $0["paymentSummaryItems"] = items(["label": "Sample Store", "amount": "0.00"]) },
        ValidCase(description: "maximum total", warningPath: nil) { $0["paymentSummaryItems"] = items(["label": "Sample Store", "amount": "100000000.00"]) },
        ValidCase(description: "total repeating a line label warns", warningPath: "paymentSummaryItems[1].label") { $0["paymentSummaryItems"] = items(["label": "Sample", "amount": "1.00"], ["label": "Sample", "amount": "1.00"]) },
        ValidCase(description: "unknown key warns", warningPath: "shippingType") { $0["shippingType"] = "delivery" },
        ValidCase(description: "KWD three decimals", warningPath: nil) { object in
            object["currencyCode"] = "KWD"
            object["paymentSummaryItems"] = items(["label": "Sample Store", "amount": "1.234"])
        },
    ]

    @Test(arguments: validCases)
    func acceptsWithTheExpectedWarning(testCase: ValidCase) {
        let result = PaymentRequestValidator.validate(json: Self.request(testCase.edit))
        #expect(result.report.errors.isEmpty, "\(result.report.errors)")
        #expect(result.request != nil)
        #expect(result.report.warnings.map(\.path) == (testCase.warningPath.map { [$0] } ?? []), "\(result.report.warnings)")
    }

    @Test func networksAreStoredCanonically() throws {
        let result = PaymentRequestValidator.validate(json: Self.request { $0["supportedNetworks"] = ["MASTERCARD", "jcb", "napas"] })
        #expect(try #require(result.request).supportedNetworks.map(\.rawValue) == ["masterCard", "JCB", "NAPAS"])
    }

    @Test func theJSONFormRoundTrips() throws {
        let request = try #require(PaymentRequestValidator.validate(json: Self.request()).request)
        let again = PaymentRequestValidator.validate(data: Array(JSONWriter.string(request.json).utf8))
        #expect(again.request == request)
    }

    @Test func theDocumentMustBeAnObject() {
        let result = PaymentRequestValidator.validate(data: Array("[1]".utf8))
        #expect(result.report.errors.map(\.description) == ["$: must be an object, not an array"])
    }

    @Test func everyPassKitNetworkIsKnown() {
        #expect(PaymentNetwork.allCases.count == 41)
        for network in PaymentNetwork.allCases {
            #expect(PaymentNetwork(name: network.rawValue.uppercased()) == network)
        }
    }
}
