import Foundation
import MockProcessor
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// `LifecycleBenchmark` does what it says it measures: every payment ends captured, and each
/// is the documented number of durable write transactions.
@Suite struct LifecycleBenchmarkTests {
    @Test func eachPaymentIsFiveTransitionsAndTwoProcessorWrites() async throws {
        let directory = try TemporaryDirectory("paypanel-bench-test")
        let clock = ManualClock(CheckoutHarness.start)
        let benchmark = LifecycleBenchmark(count: 4, directory: directory.path, clock: clock, rounds: 2) { path, clock in
            try MockProcessor(ledgerPath: path, clock: clock)
        }
        let result = try await benchmark.run()
        #expect(result.count == 4 && result.transactionsPerPayment == LifecycleBenchmark.transactionsPerPayment)
        #expect(result.lifecycleSeconds > 0 && result.baselineSeconds > 0)
        let database = try Database.openMigrated(path: directory.file("payments.sqlite"), set: .main, clock: clock)
        let repository = PaymentLedger(store: SQLitePaymentStore(database: database))
        var statuses: [PaymentStatus] = []
        var ids: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) {
            statuses.append($0.status)
            ids.append($0.id)
        }
        #expect(statuses == Array(repeating: .succeeded, count: 4))
        for id in ids {
            // One event per transition: each was one write transaction.
            #expect(try repository.details(id)?.events.map(\.type) == [
                "intent_created", "attempt_opened", "authorize_approved", "capture_requested", "capture_approved",
            ])
        }
        let ledger = try ProcessorLedger(path: directory.file("processor.sqlite"), clock: clock).entries(now: clock.now())
        #expect(ledger.count == 2 * 4)
        #expect(5 + 2 == LifecycleBenchmark.transactionsPerPayment)
        let baselineRows = try Database(path: directory.file("baseline.sqlite")).queryFirst("SELECT count(*) FROM rows") { $0.int(0) }
        #expect(baselineRows == 4 * LifecycleBenchmark.transactionsPerPayment)
        let disagreements = try LedgerAgreement.disagreements(
            databasePath: directory.file("payments.sqlite"), ledgerPath: directory.file("processor.sqlite"), now: clock.now(), settled: true)
        #expect(disagreements.isEmpty)
    }

    @Test func theJSONFormRoundsRatesAndRatio() {
        let result = LifecycleBenchmarkResult(count: 10, lifecycleSeconds: 0.03, baselineSeconds: 0.01, transactionsPerPayment: 7)
        #expect(JSONWriter.string(result.json) == #"{"count":10,"paymentsPerSecond":333.3,"baselinePerSecond":1000.0,"ratio":0.333}"#)
    }
}
