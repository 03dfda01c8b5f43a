import Foundation
import PayPanel
import TestSupport
import Testing

/// Databases for storage tests: in memory, or a file in a temporary directory when several
/// connections must share it.
enum StorageFixtures {
    static let start = PaymentFixture.start

    static func memoryRepository() throws -> PaymentLedger {
        PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: ":memory:", clock: ManualClock(start))))
    }

    static func fileRepository(_ directory: TemporaryDirectory, name: String = "payments.sqlite") throws -> PaymentLedger {
        PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: directory.file(name), clock: ManualClock(start))))
    }

    /// Creates an intent of `minorUnits` USD with a fresh id.
    static func createIntent(
        _ repository: PaymentLedger, minorUnits: Int64 = 1000, captureMethod: CaptureMethod = .manual,
        random: inout SeededRandomNumberGenerator, at time: Date = start
    ) throws -> PaymentIntent {
        let request = try NewPaymentIntent(
            amount: Amount(minorUnits: minorUnits, currency: PaymentFixture.usd), captureMethod: captureMethod, orderReference: "order-7")
        return try repository.create(request, id: PaymentIDs.make(.intent, using: &random), at: time)
    }

    /// An intent taken through authorization and capture of its whole amount.
    static func capturedIntent(_ repository: PaymentLedger, minorUnits: Int64, random: inout SeededRandomNumberGenerator) throws -> PaymentIntent {
        let intent = try createIntent(repository, minorUnits: minorUnits, random: &random)
        let attemptID = PaymentIDs.make(.attempt, using: &random)
        let amount = intent.amount
        var time = start
        func next() -> Date {
            time = time.addingTimeInterval(1)
            return time
        }
        try repository.apply(.attemptOpened(PaymentFixture.opening(attemptID, amount: amount)), to: intent.id, expectedVersion: 1, at: next())
        try repository.apply(.processorAnswered(.authorize(attemptID: attemptID), PaymentFixture.approval(amount)), to: intent.id, expectedVersion: nil, at: next())
        try repository.apply(.captureRequested(amount: nil), to: intent.id, expectedVersion: 3, at: next())
        let done = try repository.apply(.processorAnswered(.capture(attemptID: attemptID), PaymentFixture.approval(amount)), to: intent.id, expectedVersion: nil, at: next())
        return done.intent
    }

    static func count(_ database: Database, _ table: String, where condition: String = "1", _ values: [any DatabaseBindable] = []) throws -> Int {
        try database.queryFirst("SELECT count(*) FROM \(table) WHERE \(condition)", values) { $0.int(0) } ?? 0
    }
}
