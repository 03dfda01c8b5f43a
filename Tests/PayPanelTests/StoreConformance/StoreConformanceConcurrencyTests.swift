import Foundation
import PayPanel
import TestSupport
import Testing

/// Several instances of one store on one database, from several threads: the serialized
/// write makes the guards hold across them. Part of the conformance suite (see `StoreKind`);
/// runs on the kinds that can share a database (`StoreKind.shared`).
@Suite struct StoreConformanceConcurrencyTests {
    static let start = StorageFixtures.start

    @Test(arguments: StoreKind.shared)
    func twoConcurrentRefundsOf60OnACaptured100CannotBothSucceed(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let open = try subject.opener()
        var random = SeededRandomNumberGenerator(seed: 10)
        let intent = try StorageFixtures.capturedIntent(subject.ledger, minorUnits: 100, random: &random)
        let intentID = intent.id
        for round in 0..<5 {
            let outcomes = Concurrently.run(2) { index -> String in
                do {
                    let repository = PaymentLedger(store: try open())
                    try repository.apply(
                        .refundRequested(refundID: "re_\(round)_\(index)", amount: 60, reason: nil), to: intentID, expectedVersion: nil,
                        at: Self.start.addingTimeInterval(100))
                    return "ok"
                } catch let error as PaymentRejection {
                    return error.code
                } catch {
                    return "\(error)"
                }
            }
            if round == 0 {
                #expect(outcomes.sorted() == ["ok", "refund_exceeds_captured_amount"])
            } else {
                #expect(outcomes == ["refund_exceeds_captured_amount", "refund_exceeds_captured_amount"])
            }
        }
        let details = try #require(try PaymentLedger(store: try open()).details(intentID))
        #expect(details.intent.amountRefundPending == 60)
        #expect(details.refunds.count == 1)
        #expect(details.events.map(\.version) == Array(1...details.intent.version))
    }

    @Test(arguments: StoreKind.shared)
    func concurrentWritersEachGetTheirOwnVersion(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let open = try subject.opener()
        var random = SeededRandomNumberGenerator(seed: 11)
        let intent = try StorageFixtures.capturedIntent(subject.ledger, minorUnits: 1000, random: &random)
        let intentID = intent.id
        let outcomes = Concurrently.run(8) { index -> Bool in
            let repository = try? PaymentLedger(store: open())
            let transition = try? repository?.apply(
                .refundRequested(refundID: "re_w\(index)", amount: 10, reason: nil), to: intentID, expectedVersion: nil,
                at: Self.start.addingTimeInterval(100))
            return transition != nil
        }
        #expect(outcomes.allSatisfy { $0 })
        let details = try #require(try PaymentLedger(store: try open()).details(intentID))
        #expect(details.intent.amountRefundPending == 80)
        #expect(details.events.map(\.version) == Array(1...details.intent.version))
    }

    /// Duplicates from several instances at once: the body runs once, everyone gets its result.
    @Test(arguments: StoreKind.shared)
    func concurrentDuplicatesOnSeveralInstancesRunOnce(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let open = try subject.opener()
        let parameters: JSONValue = ["amount": 1000, "currency": "USD"]
        let responses = Concurrently.run(6) { _ -> String in
            do {
                let instance = try open()
                let repository = PaymentLedger(store: instance)
                let store = IdempotencyStore(store: instance)
                var random = SystemRandomNumberGenerator()
                let response = try store.perform(key: "shared", scope: "payments.create", parameters: parameters, at: Self.start) { transaction in
                    let request = try NewPaymentIntent(amount: PaymentFixture.amount)
                    return .succeeded(IdempotentPayload.intent(try repository.create(request, id: PaymentIDs.make(.intent, using: &random), at: Self.start, in: transaction)))
                }
                guard case .succeeded(.intent(let intent)) = response.result else { return "failed" }
                return JSONWriter.string(intent.json)
            } catch {
                return "error: \(error)"
            }
        }
        #expect(Set(responses).count == 1, "\(responses)")
        #expect(responses.first?.contains("pi_") == true)
        #expect(try subject.store.read { try $0.allIntentIDs() }.count == 1)
    }
}
