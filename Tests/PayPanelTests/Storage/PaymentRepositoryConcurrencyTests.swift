import Foundation
import PayPanel
import Synchronization
import TestSupport
import Testing

/// Several connections on one file: the serialized write makes the guards hold across them.
@Suite struct PaymentRepositoryConcurrencyTests {
    @Test func twoConcurrentRefundsOf60OnACaptured100CannotBothSucceed() throws {
        let directory = try TemporaryDirectory()
        var random = SeededRandomNumberGenerator(seed: 10)
        let intent = try StorageFixtures.capturedIntent(try StorageFixtures.fileRepository(directory), minorUnits: 100, random: &random)
        let path = directory.file("payments.sqlite")
        let intentID = intent.id
        for round in 0..<5 {
            let outcomes = Concurrently.run(2) { index -> String in
                do {
                    let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database(path: path)))
                    try repository.apply(
                        .refundRequested(refundID: "re_\(round)_\(index)", amount: 60, reason: nil), to: intentID, expectedVersion: nil,
                        at: StorageFixtures.start.addingTimeInterval(100))
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
        let stored = try #require(try StorageFixtures.fileRepository(directory).intent(intentID))
        #expect(stored.amountRefundPending == 60)
    }

    @Test func concurrentWritersEachGetTheirOwnVersion() throws {
        let directory = try TemporaryDirectory()
        var random = SeededRandomNumberGenerator(seed: 11)
        let intent = try StorageFixtures.capturedIntent(try StorageFixtures.fileRepository(directory), minorUnits: 1000, random: &random)
        let path = directory.file("payments.sqlite")
        let intentID = intent.id
        let outcomes = Concurrently.run(8) { index -> Bool in
            let repository = try? PaymentLedger(store: SQLitePaymentStore(database: Database(path: path)))
            let transition = try? repository?.apply(
                .refundRequested(refundID: "re_w\(index)", amount: 10, reason: nil), to: intentID, expectedVersion: nil,
                at: StorageFixtures.start.addingTimeInterval(100))
            return transition != nil
        }
        #expect(outcomes.allSatisfy { $0 })
        let details = try #require(try StorageFixtures.fileRepository(directory).details(intentID))
        #expect(details.intent.amountRefundPending == 80)
        #expect(details.events.map(\.version) == Array(1...details.intent.version))
    }
}
