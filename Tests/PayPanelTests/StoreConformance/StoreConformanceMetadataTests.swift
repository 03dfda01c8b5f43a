import Foundation
import PayPanel
import TestSupport
import Testing

/// Metadata on every store (see `StoreKind`): an intent's is stored, read back, replayed from
/// its history and filtered on when listing; a checkout's is stored, updated, and carried in the
/// message its status change writes.
@Suite struct StoreConformanceMetadataTests {
    static let start = StorageFixtures.start

    static func create(_ ledger: PaymentLedger, _ metadata: [String: String], at offset: TimeInterval, random: inout SeededRandomNumberGenerator) throws -> PaymentIntent {
        let request = try NewPaymentIntent(
            amount: Amount(minorUnits: 1000, currency: PaymentFixture.usd), orderReference: "order-1234567890123", metadata: try Metadata(metadata))
        return try ledger.create(request, id: PaymentIDs.make(.intent, using: &random), at: start.addingTimeInterval(offset))
    }

    @Test(arguments: StoreKind.allCases)
    func anIntentsMetadataIsStoredReadBackAndReplayed(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        var random = SeededRandomNumberGenerator(seed: 31)
        let values = ["order": "42", "sent_ns": "1732000000123456780", "note": "ünïcödé \"quoted\" ✓", "empty-looking": " "]
        let intent = try Self.create(subject.ledger, values, at: 0, random: &random)
        #expect(intent.metadata.values == values)
        let read = try #require(try subject.ledger.intent(intent.id))
        #expect(read == intent && read.metadata.values == values)
        #expect(try HistoryReplay(ledger: subject.ledger).discrepancies(intentID: intent.id) == [])
        // A transition keeps it (an update writes only what a transition changes).
        let canceled = try subject.ledger.apply(.cancelRequested(reason: .requestedByCustomer), to: intent.id, expectedVersion: 1, at: Self.start)
        #expect(canceled.machine.intent.metadata.values == values)
        #expect(try subject.ledger.intent(intent.id)?.metadata.values == values)
    }

    @Test(arguments: StoreKind.allCases)
    func theListIsFilteredByEveryPairGiven(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        var random = SeededRandomNumberGenerator(seed: 32)
        let a = try Self.create(subject.ledger, ["order": "42", "shop": "north"], at: 1, random: &random)
        let b = try Self.create(subject.ledger, ["order": "42", "shop": "south"], at: 2, random: &random)
        let c = try Self.create(subject.ledger, ["order": "43", "shop": "north"], at: 3, random: &random)
        _ = try Self.create(subject.ledger, [:], at: 4, random: &random)
        func page(_ filter: [String: String], after: String? = nil, before: String? = nil, limit: Int = 10) throws -> [String] {
            try subject.ledger.intentPage(status: nil, metadata: filter, startingAfter: after, endingBefore: before, limit: limit).intents.map(\.id)
        }
        #expect(try page(["order": "42"]) == [b.id, a.id])
        #expect(try page(["order": "42", "shop": "north"]) == [a.id])
        #expect(try page(["shop": "north"]) == [c.id, a.id])
        #expect(try page(["shop": "north"], limit: 1) == [c.id])
        #expect(try page(["shop": "north"], after: c.id) == [a.id])
        #expect(try page(["shop": "north"], before: a.id) == [c.id])
        #expect(try page(["order": "4"]).isEmpty, "values match whole, not by prefix")
        #expect(try page(["nope": ""]).isEmpty)
        #expect(try page([:]).count == 4)
    }

    @Test(arguments: StoreKind.shared)
    func aCheckoutsMetadataIsStoredUpdatedAndInItsStatusMessage(kind: StoreKind) throws {
        let subject = try kind.makeFactory(clock: ManualClock(Self.start))
        let checkouts = try subject.factory.openPaymentStore()
        var random = SeededRandomNumberGenerator(seed: 33)
        let id = PaymentIDs.make(.checkout, using: &random)
        var checkout = Checkout(
            id: id, status: .open, panel: .seed, captureMethod: .automatic, paymentIntentID: nil,
            clientSecretHash: Array(repeating: 7, count: 32), createdAt: Self.start, updatedAt: Self.start, version: 1,
            metadata: try Metadata(["order": "42"]))
        try checkouts.insertCheckout(checkout)
        #expect(try checkouts.checkout(id) == checkout)
        var updated = checkout
        updated.metadata = try Metadata(["order": "43", "gift": "yes"])
        updated.status = .canceled
        updated.version = 2
        #expect(try checkouts.updateCheckout(updated, previousVersion: 1))
        checkout = try #require(try checkouts.checkout(id))
        #expect(checkout.metadata.values == ["order": "43", "gift": "yes"])
        let messages = try subject.factory.openWebhookStore().unpublishedMessages(limit: 10)
        let carried = messages.compactMap { message -> Metadata? in
            if case .checkout(let message) = message, message.checkout.id == id { return message.checkout.metadata }
            return nil
        }
        #expect(carried.map(\.values) == [["order": "43", "gift": "yes"]])
    }
}
