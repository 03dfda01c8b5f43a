import Foundation
import PayPanel
import TestSupport
import Testing

/// Outbox messages carry the library's typed, versioned `OutboxPayload`, not the CLI's JSON: it
/// round-trips, a message written before (version 0) reads as the relay read it then, and a
/// newer version is refused.
@Suite struct OutboxPayloadTests {
    @Test func aPayloadRoundTripsAndHoldsNoRendering() throws {
        let (intent, _, refund) = try StoredPaymentResultTests.richOutcome()
        for payload in [
            OutboxPayload(topic: "refund.updated", intent: intent, refund: refund),
            OutboxPayload(topic: "payment_intent.created", intent: intent, refund: nil),
        ] {
            let text = payload.storedText
            #expect(try OutboxPayload(storedText: text) == payload, "\(text)")
            #expect(text.contains(#""payloadVersion":1"#))
            #expect(!text.contains("amountCapturable") && !text.contains("payerMessage") && !text.contains(#""object""#), "\(text)")
        }
    }

    /// What the previous program appended: `{"topic", "intent", "refund"?}` of the `--json`.
    @Test func aVersion0PayloadReadsAsBefore() throws {
        let (intent, _, refund) = try StoredPaymentResultTests.richOutcome()
        let old = JSONWriter.string(.orderedObject([("topic", "refund.updated"), ("intent", intent.json), ("refund", refund.json)]))
        let read = try OutboxPayload(storedText: old)
        #expect(read.topic == "refund.updated")
        #expect(JSONWriter.string(read.intent.json) == JSONWriter.string(intent.json))
        #expect(JSONWriter.string(try #require(read.refund).json) == JSONWriter.string(refund.json))
        let withoutRefund = JSONWriter.string(.orderedObject([("topic", "payment_intent.created"), ("intent", intent.json)]))
        #expect(try OutboxPayload(storedText: withoutRefund).refund == nil)
    }

    @Test func aNewerOrBrokenPayloadIsRefused() throws {
        #expect(throws: StoredFormatError.unsupportedVersion(found: 2, newest: 1)) {
            try OutboxPayload(storedText: #"{"payloadVersion":2,"topic":"x"}"#)
        }
        #expect(throws: StoredFormatError.notJSON) { try OutboxPayload(storedText: "not json") }
        #expect(throws: StoredFormatError.malformed("a version 0 outbox payload without its topic or intent")) {
            try OutboxPayload(storedText: #"{"topic":"payment_intent.created"}"#)
        }
    }

    /// The ledger appends the typed payload: what a message holds is the intent as the change left it.
    @Test func theLedgerAppendsTheTypedPayload() async throws {
        let harness = try CheckoutHarness()
        let intent = try await harness.createIntent()
        let database = try Database.openMigrated(path: harness.databasePath, set: .main, clock: ManualClock(CheckoutHarness.start))
        let messages = try SQLitePaymentStore(database: database).read { try $0.outbox(ofIntent: intent.id) }
        let message = try #require(messages.first)
        let payload = try OutboxPayload(storedText: message.payload)
        #expect(payload.topic == message.topic && payload.intent == intent && payload.refund == nil)
    }
}
