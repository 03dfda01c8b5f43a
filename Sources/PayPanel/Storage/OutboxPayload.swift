import Foundation

/// What an outbox message carries: the intent — and the refund, for a `refund.*` topic — as the
/// change left them, typed. The relay renders them in the API's shape when it publishes the
/// event (`EventObjects`); the stored text is the library's own format, so neither the CLI's
/// `--json` nor the API's objects can change what a stored message says.
///
/// Version 1 is `{"intent": …, "payloadVersion": 1, "refund": …, "topic": …}` with the
/// snapshots of `StoredSnapshots.swift`. Text without `payloadVersion` is version 0, the
/// `{"topic", "intent", "refund"?}` of intents' and refunds' `--json` written before; it is read
/// by their snapshot decoders, as the relay read it then. A newer version is refused.
package struct OutboxPayload: Sendable, Equatable {
    /// The version this build writes, and the newest it reads.
    package static let currentVersion = 1

    package let topic: String
    package let intent: PaymentIntent
    package let refund: Refund?

    package init(topic: String, intent: PaymentIntent, refund: Refund?) {
        self.topic = topic
        self.intent = intent
        self.refund = refund
    }

    /// The text an outbox row keeps.
    package var storedText: String {
        StoredJSON.encode(Record(
            payloadVersion: Self.currentVersion, topic: topic, intent: IntentRecord(intent), refund: refund.map(RefundRecord.init)))
    }

    /// The payload of an outbox row's text, version 0 or 1.
    package init(storedText text: String) throws(StoredFormatError) {
        let (version, json) = try StoredJSON.read(text, versionKey: "payloadVersion", newest: Self.currentVersion)
        guard version != nil else {
            guard let topic = json["topic"]?.stringValue, let intent = json["intent"] else {
                throw .malformed("a version 0 outbox payload without its topic or intent")
            }
            let refund = json["refund"] == .null ? nil : json["refund"]
            do {
                self.init(
                    topic: topic, intent: try PaymentIntent(snapshot: intent),
                    refund: try refund.map { refund throws(PaymentSnapshotError) in try Refund(snapshot: refund) })
            } catch {
                throw .malformed("a version 0 outbox payload: \(error.message)")
            }
            return
        }
        let record = try StoredJSON.decode(Record.self, from: json)
        self.init(topic: record.topic, intent: try record.intent.model(), refund: try record.refund?.model())
    }

    private struct Record: Codable {
        let payloadVersion: Int
        let topic: String
        let intent: IntentRecord
        let refund: RefundRecord?
    }
}
