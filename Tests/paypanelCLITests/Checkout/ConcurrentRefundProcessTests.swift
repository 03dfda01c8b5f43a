import Foundation
import PayPanel
import TestSupport
import Testing

/// Two `paypanel payments refund` processes at once on the same files: the refundable
/// remainder is checked inside the serialized write that reserves the refund, so two refunds
/// of 60 on a captured 100 can never both go through.
@Suite struct ConcurrentRefundProcessTests {
    /// `REFUND_ASYNC` keeps the winner's refund pending: its amount must stay reserved.
    @Test(arguments: [nil, "REFUND_ASYNC"], 0..<3)
    func twoConcurrentRefundsOf60OnACaptured100FromTwoProcesses(holder: String?, round: Int) throws {
        let cli = try CheckoutCLI()
        let id = try cli.capturedIntent("100.00", holder: holder)
        let results = Concurrently.run(2) { _ in
            Result { try cli.run(["payments", "refund", id, "--amount", "60", "--json"]) }
        }.map { try? $0.get() }
        let finished = results.compactMap { $0 }
        #expect(finished.count == 2, "both processes ran")
        let winners = finished.filter { $0.status == 0 }
        let losers = finished.filter { $0.status == 1 }
        #expect(winners.count == 1 && losers.count == 1, "\(finished)")
        let loser = try #require(losers.first)
        #expect(loser.stderr == "Error: cannot refund 60.00 USD of payment intent \(id): only 40.00 USD of the captured amount is not refunded or being refunded\n")
        #expect(loser.stdout.isEmpty)
        let winner = try #require(winners.first)
        let refund = try #require(try cli.json(winner)["refund"])
        #expect(refund["amount"] == 6000 && refund["status"] == (holder == nil ? "succeeded" : "pending"))

        let shown = try cli.show(id)
        #expect(shown["refunds"]?.arrayValue?.count == 1)
        #expect(shown["amountRefunded"] == (holder == nil ? 6000 : 0))
        #expect(shown["amountRefundPending"] == (holder == nil ? 0 : 6000))
        #expect(try cli.ledger() == ["authorize:approved", "capture:approved", holder == nil ? "refund:approved" : "refund:pending"])
        #expect(try cli.disagreements(settled: true).isEmpty)
        if holder != nil {
            // Once the asynchronous refund settles, reconciliation records it: still 60 of 100.
            let reconciled = try cli.run(["reconcile"], now: "2026-11-29T12:01:00Z")
            #expect(reconciled.status == 0 && reconciled.stdout.contains("refund \(refund["id"]?.stringValue ?? "?"): approved"), "\(reconciled)")
            #expect(try cli.show(id)["amountRefunded"] == 6000)
            #expect(try cli.disagreements(settled: true, now: "2026-11-29T12:01:00Z").isEmpty)
        }
    }
}
