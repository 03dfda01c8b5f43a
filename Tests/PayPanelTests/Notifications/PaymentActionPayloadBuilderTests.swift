import PayPanel
import Testing

@Suite struct PaymentActionPayloadBuilderTests {
    @Test func theDefaultPayloadCarriesTheSeedPanel() throws {
        let payload = try PaymentActionPayloadBuilder().build()
        #expect(payload.aps.category == "PAYMENT_ACTION")
        #expect(payload.aps.mutableContent)
        #expect(payload.aps.threadID == "panel-merchant.com.sample.ApplePayAction")
        #expect(payload.aps.alert?.title == "Some Product")
        #expect(payload.aps.alert?.body == "Choose 5.00, 10.00 or 20.00 USD and pay with Apple Pay.")
        #expect(payload.panel == PanelConfig.seed)
        #expect(payload.media == .absent)
    }

    @Test func anOrderReferenceSetsThePanelsReferenceAndTheThread() throws {
        let payload = try PaymentActionPayloadBuilder(title: "Coffee", subtitle: "Order 42", body: "Pay now", orderReference: "42").build()
        #expect(payload.aps.threadID == "order-42")
        #expect(payload.panel?.orderReference == "42")
        #expect(payload.aps.alert == NotificationAlert(title: "Coffee", subtitle: "Order 42", body: "Pay now"))
    }

    @Test func theBuiltDocumentReadsBackIdentically() throws {
        let built = try PaymentActionPayloadBuilder(orderReference: "A1", media: MediaPayload(subtitle: "S", imageURL: "a.png")).build()
        let reread = PushPayloadReader.read(data: Array(JSONWriter.string(.object(built.document)).utf8))
        #expect(reread.report.errors.isEmpty)
        #expect(reread.payload == built)
    }

    @Test func aBodyThatMakesThePayloadTooLargeIsRefusedWithTheSize() {
        #expect {
            try PaymentActionPayloadBuilder(body: String(repeating: "x", count: 4000)).build()
        } throws: { error in
            guard let error = error as? PaymentActionPayloadError else { return false }
            return error.code == "payload_too_large" && error.byteCount > 4096 && error.message.contains("\(error.byteCount) bytes")
        }
    }
}
