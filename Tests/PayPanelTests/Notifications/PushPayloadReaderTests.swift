import PayPanel
import Testing

@Suite struct PushPayloadReaderTests {
    @Test(arguments: ["payment-panel.json", "payment-panel-update.json", "media-image.json", "media-video.json",
                      "media-gif.json", "media-fake-png.json", "reveal.json"])
    func validFixturesHaveNoErrors(name: String) throws {
        let result = try NotificationFixtures.read(name)
        #expect(result.report.errors.isEmpty, "\(result.report.errors)")
        #expect(result.payload != nil)
    }

    @Test func paymentPanelFixtureReadsEveryPart() throws {
        let payload = try NotificationFixtures.payload("payment-panel.json")
        #expect(payload.aps.category == "PAYMENT_ACTION")
        #expect(payload.aps.mutableContent)
        #expect(payload.aps.threadID == "order-A1001")
        #expect(payload.aps.alert?.title == "Some Product")
        #expect(payload.aps.sound == NotificationSound(name: "default"))
        #expect(payload.panel?.amountOptions == [500, 1000, 2000])
        #expect(payload.panel?.orderReference == "A1001")
        #expect(payload.orderReference == "A1001")
    }

    /// Each wrongly typed standard key is rejected with its path.
    @Test(arguments: [
        (#"{"alert": 5}"#, "aps.alert", "must be a string (the body) or an object"),
        (#"{"alert": {"title": 7}}"#, "aps.alert.title", "must be a string, not a number"),
        (#"{"alert": {"subtitle": true}}"#, "aps.alert.subtitle", "must be a string, not a boolean"),
        (#"{"alert": {"body": ["x"]}}"#, "aps.alert.body", "must be a string, not an array"),
        (#"{"alert": {"launch-image": 1}}"#, "aps.alert.launch-image", "must be a string"),
        (#"{"alert": {"title-loc-key": 1}}"#, "aps.alert.title-loc-key", "must be a string"),
        (#"{"alert": {"title-loc-key": "K", "title-loc-args": "x"}}"#, "aps.alert.title-loc-args", "must be an array"),
        (#"{"alert": {"subtitle-loc-key": {}}}"#, "aps.alert.subtitle-loc-key", "must be a string"),
        (#"{"alert": {"subtitle-loc-key": "K", "subtitle-loc-args": [1]}}"#, "aps.alert.subtitle-loc-args[0]", "must be a string"),
        (#"{"alert": {"loc-key": 3}}"#, "aps.alert.loc-key", "must be a string"),
        (#"{"alert": {"loc-key": "K", "loc-args": ["a", null]}}"#, "aps.alert.loc-args[1]", "is required"),
        (#"{"badge": "3"}"#, "aps.badge", "must be an integer, not a string"),
        (#"{"badge": 1.5}"#, "aps.badge", "must be a whole number"),
        (#"{"badge": -1}"#, "aps.badge", "must be 0 or more"),
        (#"{"sound": 5}"#, "aps.sound", "must be a sound name or an object"),
        (#"{"sound": {"critical": 1, "volume": 0.5}}"#, "aps.sound.name", "is required"),
        (#"{"sound": {"name": "a", "volume": 2}}"#, "aps.sound.volume", "from 0 to 1"),
        (#"{"sound": {"name": "a", "critical": true}}"#, "aps.sound.critical", "must be the number 1 (or 0)"),
        (#"{"thread-id": 12}"#, "aps.thread-id", "must be a string, not a number"),
        (#"{"category": ["PAYMENT_ACTION"]}"#, "aps.category", "must be a string, not an array"),
        (#"{"content-available": true}"#, "aps.content-available", "does not accept a JSON boolean"),
        (#"{"content-available": "1"}"#, "aps.content-available", "must be an integer, not a string"),
        (#"{"mutable-content": true}"#, "aps.mutable-content", "does not accept a JSON boolean"),
        (#"{"mutable-content": 2}"#, "aps.mutable-content", "must be 1 (or 0), not 2"),
        (#"{"target-content-id": 1}"#, "aps.target-content-id", "must be a string"),
        (#"{"interruption-level": "loud"}"#, "aps.interruption-level", "is not an interruption level"),
        (#"{"interruption-level": 1}"#, "aps.interruption-level", "must be a string"),
        (#"{"relevance-score": 1.5}"#, "aps.relevance-score", "from 0 to 1, not 1.5"),
        (#"{"relevance-score": "0.5"}"#, "aps.relevance-score", "must be a number from 0 to 1, not a string"),
        (#"{"filter-criteria": false}"#, "aps.filter-criteria", "must be a string"),
        (#"{"timestamp": "now"}"#, "aps.timestamp", "must be an integer"),
        (#"{"content-state": []}"#, "aps.content-state", "must be an object"),
    ])
    func wronglyTypedStandardKeysAreRejectedWithTheirPath(aps: String, path: String, reason: String) {
        let result = PushPayloadReader.read(data: Array("{\"aps\": \(aps)}".utf8))
        #expect(!result.report.isValid)
        #expect(result.report.errors.contains { $0.path == path && $0.reason.contains(reason) }, "\(result.report.errors)")
        #expect(result.deliverablePayload == nil)
    }

    @Test func everyProblemIsReportedAtOnce() throws {
        let result = try NotificationFixtures.read("invalid-types.json")
        let paths = Set(result.report.errors.map(\.path))
        #expect(paths == ["aps.alert.title", "aps.alert.loc-args[1]", "aps.badge", "aps.sound", "aps.thread-id",
                          "aps.content-available", "aps.mutable-content", "aps.interruption-level", "aps.relevance-score", "payload"])
    }

    @Test func correctlyTypedStandardKeysAreRead() {
        let json = #"""
            {"aps": {"alert": "Just a body", "badge": 0, "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.8},
             "thread-id": "t", "category": "REVEAL", "content-available": 0, "mutable-content": 1, "target-content-id": "x",
             "interruption-level": "critical", "relevance-score": 0.25, "filter-criteria": "work"}}
            """#
        let result = PushPayloadReader.read(data: Array(json.utf8))
        #expect(result.report.errors.isEmpty, "\(result.report.errors)")
        let aps = result.payload?.aps
        #expect(aps?.alert?.body == "Just a body")
        #expect(aps?.badge == 0)
        #expect(aps?.sound == NotificationSound(name: "alarm.caf", critical: true, volume: 0.8))
        #expect(aps?.interruptionLevel == .critical)
        #expect(aps?.relevanceScore == 0.25)
        #expect(aps?.contentAvailable == false)
        #expect(aps?.filterCriteria == "work")
    }

    @Test func unknownApsKeysDrawWarningsNotErrors() {
        let result = PushPayloadReader.read(data: Array(#"{"aps": {"alert": "hi", "colour": "red"}}"#.utf8))
        #expect(result.report.isValid)
        #expect(result.report.warnings.map(\.path) == ["aps.colour"])
    }

    @Test func aPayloadWithoutApsOrNotAnObjectIsRejected() {
        #expect(PushPayloadReader.read(data: Array(#"{"panel": {}}"#.utf8)).report.errors.first?.description == "aps: is required")
        #expect(PushPayloadReader.read(data: Array("[1]".utf8)).report.errors.first?.reason.contains("must be a JSON object") == true)
        #expect(PushPayloadReader.read(data: Array("{".utf8)).report.errors.first?.reason.hasPrefix("invalid JSON") == true)
    }

    @Test func paymentActionNeedsAPanelAndText() {
        let result = PushPayloadReader.read(data: Array(#"{"aps": {"category": "PAYMENT_ACTION"}}"#.utf8))
        #expect(result.report.errors.map(\.path).sorted() == ["aps.alert", "panel"])
    }

    @Test func panelProblemsAreReportedUnderThePanelKey() {
        let json = #"{"aps": {"alert": "x", "category": "PAYMENT_ACTION"}, "panel": {"merchantIdentifier": "merchant.com.sample.ApplePayAction", "countryCode": "us", "currencyCode": "USD", "supportedNetworks": ["visa"], "merchantCapabilities": ["supports3DS"], "productLabel": "P", "amountOptions": [500, "10"]}}"#
        let result = PushPayloadReader.read(data: Array(json.utf8))
        let paths = result.report.errors.map(\.path)
        #expect(paths.contains("panel.countryCode"))
        #expect(paths.contains("panel.amountOptions[1]"))
        #expect(result.deliverablePayload == nil)
    }

    @Test func thePayloadAtTheLimitPassesAndOneByteMoreFailsWithItsSize() throws {
        let base = PushPayloadReader.read(json: ["aps": ["alert": ["body": ""]]]).compactByteCount!
        let exact: JSONValue = ["aps": ["alert": ["body": .string(String(repeating: "a", count: 4096 - base))]]]
        let exactResult = PushPayloadReader.read(json: exact)
        #expect(exactResult.compactByteCount == 4096)
        #expect(exactResult.report.isValid)
        let over: JSONValue = ["aps": ["alert": ["body": .string(String(repeating: "a", count: 4097 - base))]]]
        let overResult = PushPayloadReader.read(json: over)
        #expect(overResult.report.errors.map(\.description) == [
            "$: the payload is 4097 bytes as compact JSON (UTF-8); APNs accepts at most 4096: shorten it by 1 bytes (the body, or the panel's labels)",
        ])
    }

    @Test func sizeCountsUTF8BytesOfTheCompactFormNotCharactersOrIndentation() {
        // "é" is 2 bytes; the pretty-printed input's spaces do not count.
        let pretty = "{\n  \"aps\" : {\n    \"alert\" : \"é\"\n  }\n}"
        let result = PushPayloadReader.read(data: Array(pretty.utf8))
        #expect(result.compactByteCount == #"{"aps":{"alert":"é"}}"#.utf8.count)
        #expect(result.compactByteCount == 22)
    }

    @Test func theOversizedFixtureIsRejectedWithItsSize() throws {
        let result = try NotificationFixtures.read("oversized.json")
        #expect(result.report.errors.count == 1)
        #expect(result.report.errors[0].reason.contains("\(result.compactByteCount!) bytes"))
        #expect(result.compactByteCount! > 4096)
        #expect(result.deliverablePayload == nil)
    }

    @Test func aMalformedMediaStringIsAnErrorButTheNotificationIsStillDeliverable() throws {
        let result = try NotificationFixtures.read("media-malformed.json")
        #expect(result.report.errors.map(\.path) == ["payload"])
        guard case .malformed(_, let problems)? = result.deliverablePayload?.media else {
            Issue.record("expected a deliverable payload with malformed media")
            return
        }
        #expect(problems.first?.reason.contains("not valid JSON") == true)
    }

    @Test func mediaWithoutMutableContentDrawsAWarning() {
        let json = #"{"aps": {"alert": "x"}, "payload": "{\"imageUrl\":\"a.png\"}"}"#
        let result = PushPayloadReader.read(data: Array(json.utf8))
        #expect(result.report.isValid)
        #expect(result.report.warnings.map(\.path) == ["payload"])
    }
}
