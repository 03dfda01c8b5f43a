import Foundation
import PayPanel
import PayPanelDemo
import PayPanelHTTP
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

    /// A server started from a `PaymentsServerAssembly`, as `serve` starts its own, runs the
    /// duties without being handed them: a checkout past its deadline expires, and the payment's
    /// outbox message is published as an event by the webhook relay.
    @Test func aServerStartedFromASetupRunsTheDutiesServeRuns() async throws {
        let directory = try TemporaryDirectory("paypanel-assembled-duties")
        let path = directory.file("payments.sqlite")
        let clock = ManualClock(Self.start)
        let stores = SQLiteStoreFactory(path: path, clock: clock)
        let service = PaymentService(store: try SQLitePaymentStore(path: path, clock: clock), processor: UnusedProcessor(), clock: clock)
        var setup = PaymentsServerSetup(
            stores: stores, service: service, clock: clock,
            tokenVerifier: try ApplePayTokenVerifier(merchants: [ApplePayTestKeys.ecMerchant], trustedRoot: ApplePayTestKeys.root),
            processorLedger: NoProcessorLedger())
        setup.webhookBox = try WebhookSecretBox(masterKey: Array(repeating: 3, count: 32))
        let assembly = try PaymentsServerAssembly(setup)
        let expiring = try await assembly.desk.create(json: try JSONParser().parse(#"{"expires_at": \#(Int64(Self.start.timeIntervalSince1970) + 60)}"#))
        _ = try await service.createIntent(try NewPaymentIntent(amount: Amount(minorUnits: 500, currency: try Currency(code: "USD"))))
        clock.advance(by: 61)

        let relayed = Recorder<Int>()
        let failures = Recorder<String>()
        let server = try PaymentsServer.start(
            assembly, configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), workerInterval: .milliseconds(10),
            workerReport: { event in
                switch event {
                case .webhooksRelayed(let report): relayed.record(report.published)
                case .reconciled: break
                default: failures.record("\(event)")
                }
            })
        // The relay is started by a pass and reports when it has published; the bound only
        // stops a hang (the whole suite on two busy cores can hold a pass up for seconds).
        let deadline = ContinuousClock.now + .seconds(120)
        while relayed.all.reduce(0, +) < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        await server.shutdown(grace: .seconds(2))

        #expect(relayed.all.reduce(0, +) >= 1, "the relay published nothing in 120 s: the server's worker has no webhook duty")
        // The relay's pass starts after the checkout duty of the same pass has finished.
        #expect(try await assembly.desk.checkout(expiring.checkout.id)?.status == .expired)
        #expect(failures.all.isEmpty, "\(failures.all)")
    }
}

/// The console's processor ledger, never read by these tests.
struct NoProcessorLedger: ProcessorLedgerReading {
    func entries(ofAttempts attemptIDs: [String]) async -> ProcessorLedgerView { .unavailable(reason: "not in this test") }
}
