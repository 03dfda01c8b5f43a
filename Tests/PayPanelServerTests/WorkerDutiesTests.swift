import Foundation
import PayPanel
import PayPanelServer
import TestSupport
import Testing

/// The worker's duties come with the server library: a program that embeds `PaymentsServer` or
/// `ReconciliationWorker` (not `paypanel serve`) gets checkout expiry by handing over its desk,
/// and hears what each pass did as typed events.
@Suite struct WorkerDutiesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anEmbeddedWorkerExpiresACheckoutPastItsDeadline() async throws {
        let directory = try TemporaryDirectory("paypanel-worker-duties")
        let path = directory.file("payments.sqlite")
        let clock = ManualClock(Self.start)
        let service = PaymentService(store: try SQLitePaymentStore(path: path, clock: clock), processor: UnusedProcessor(), clock: clock)
        let desk = CheckoutDesk(service: service, clock: clock, randomSeed: 1)
        let expiring = try await desk.create(json: try JSONParser().parse(#"{"expires_at": \#(Int64(Self.start.timeIntervalSince1970) + 60)}"#))
        let open = try await desk.create(json: try JSONParser().parse(#"{"expires_at": \#(Int64(Self.start.timeIntervalSince1970) + 600)}"#))
        clock.advance(by: 61)

        let passes = WorkerPasses()
        let events = Recorder<String>()
        let worker = ReconciliationWorker(
            service: service, interval: .milliseconds(10), duties: WorkerDuties(checkouts: desk), passes: passes,
            report: { events.record("\($0)") })
        // One finished pass has run every duty (they run before its reconciliation). The bound
        // only stops a hang: the whole suite on two busy cores can hold a pass up for seconds.
        let deadline = ContinuousClock.now + .seconds(120)
        while passes.finished < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        await worker.stop()

        #expect(passes.finished >= 1, "the worker finished no pass in 120 s")
        #expect(try await desk.checkout(expiring.checkout.id)?.status == .expired)
        #expect(try await desk.checkout(open.checkout.id)?.status == .open)
        #expect(events.all.isEmpty, "nothing failed and nothing was reconciled: \(events.all)")
    }
}
