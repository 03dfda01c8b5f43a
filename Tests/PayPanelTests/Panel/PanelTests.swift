import PayPanel
import TestSupport
import Testing

@Suite struct PanelTests {
    static let usd = try! Currency(code: "USD")

    @Test func theSeedFixtureIsTheSeedPanel() throws {
        let result = PanelConfigReader.read(data: Array(try RepositoryPaths.contents(ofFixture: "panels/seed.json").utf8))
        #expect(result.report.errors.isEmpty)
        #expect(result.panel == PanelConfig.seed)
    }

    @Test func theSelectorStartsOnTheDefaultSegment() throws {
        var panel = PanelConfig.seed
        panel.defaultSegment = 2
        #expect(try panel.makeSelector().selected == Amount(minorUnits: 1000, currency: Self.usd))
    }

    @Test func selectsBySegmentValueAndText() throws {
        var selector = try PanelConfig.seed.makeSelector()
        try selector.select(segment: 3)
        #expect(selector.selected.minorUnits == 2000)
        try selector.select(amount: Amount(minorUnits: 500, currency: Self.usd))
        #expect(selector.selectedSegment == 1)
        try selector.select(amountText: "10")
        #expect(selector.selectedSegment == 2)
        selector.move(by: 5)
        #expect(selector.selectedSegment == 3)
        selector.move(by: -9)
        #expect(selector.selectedSegment == 1)
    }

    @Test func anAmountNotOfferedIsAnErrorListingTheOptions() throws {
        var selector = try PanelConfig.seed.makeSelector()
        #expect {
            try selector.select(amountText: "15")
        } throws: { error in
            (error as? PanelError)?.message.contains("choose 5.00, 10.00 or 20.00 USD") == true
        }
        #expect(throws: PanelError.self) { try selector.select(segment: 4) }
        #expect(throws: PanelError.self) { try selector.select(amountText: "1e1") }
    }

    @Test func anUpdateKeepsTheSelectionWhenTheAmountStillExists() throws {
        var selector = try PanelConfig.seed.makeSelector()
        try selector.select(segment: 2)  // 10.00
        try selector.replaceOptions([1000, 2500, 5000].map { Amount(minorUnits: $0, currency: Self.usd) }, defaultSegment: 3)
        #expect(selector.selected.minorUnits == 1000)
        try selector.replaceOptions([3000, 4000].map { Amount(minorUnits: $0, currency: Self.usd) }, defaultSegment: 2)
        #expect(selector.selected.minorUnits == 4000)  // gone: back to the new default
    }

    @Test func theSeedPanelBuildsTheSeedRequest() throws {
        var selector = try PanelConfig.seed.makeSelector()
        try selector.select(amountText: "20")
        let request = PaymentRequest(panel: .seed, selection: selector)
        #expect(request.total?.amount?.decimalString == "20.00")
        #expect(request.summaryItems.map(\.label) == ["Some Product"])
        let report = PaymentRequestRules.check(request)
        #expect(report.isValid)
        #expect(report.warnings.count == 1)
    }

    @Test func aMerchantNameBecomesTheTotal() throws {
        var panel = PanelConfig.seed
        panel.merchantName = "Sample Action Store"
        let request = PaymentRequest(panel: panel, selection: try panel.makeSelector())
        #expect(request.summaryItems.map(\.label) == ["Some Product", "Sample Action Store"])
        #expect(PaymentRequestRules.check(request).warnings.isEmpty)
    }

    @Test(arguments: [
        (#"{"amountOptions": []}"#, "amountOptions", "1 to 5 amounts"),
        (#"{"amountOptions": [500, 500]}"#, "amountOptions[1]", "repeats"),
        (#"{"amountOptions": [0]}"#, "amountOptions[0]", "more than zero"),
        (#"{"amountOptions": ["5.00"]}"#, "amountOptions[0]", "not a string"),
        (#"{"amountOptions": [5.5]}"#, "amountOptions[0]", "whole number"),
        (#"{"defaultSegment": 4}"#, "defaultSegment", "from 1 to 3"),
        (#"{"productLabel": ""}"#, "productLabel", "must not be empty"),
        (#"{"expiresAt": "tomorrow"}"#, "expiresAt", "ISO-8601"),
        (#"{"currencyCode": "usd"}"#, "currencyCode", "upper case"),
    ])
    func rejectsBadPanelFields(patch: String, path: String, reason: String) throws {
        var object = try #require(PanelConfig.seed.json.objectValue)
        for member in try #require(try JSONParser().parse(patch).objectValue).members {
            object[member.key] = member.value
        }
        let result = PanelConfigReader.read(json: .object(object))
        #expect(result.panel == nil)
        #expect(result.report.errors.contains { $0.path == path && $0.reason.contains(reason) }, "\(result.report.errors)")
    }
}
