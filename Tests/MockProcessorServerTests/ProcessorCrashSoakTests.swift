import Foundation
import PayPanel
import PayPanelReliability
import Testing
import TestSupport

/// The crash soak with the processor in its own process (`paypanel soak processor` runs the
/// long version; `.ci/run` a medium one): a small, seeded count here.
@Suite("processor crash soak: serve and processor serve killed and restarted")
struct ProcessorCrashSoakTests {
    @Test("Six flows, alternating serve's fault points and processor kills during network faults: both ledgers agree afterwards")
    func smallSoakPasses() async throws {
        let directory = try TemporaryDirectory("processor-soak")
        var configuration = ProcessorSoakConfiguration(iterations: 6, seed: 3, executable: CLIRunner.binary.path, directory: directory.path)
        // Generous: a loaded 2-core machine; this only bounds a stuck intent, it measures nothing.
        configuration.settleTimeout = 300
        let soak = configuration
        let report = try await onThread { try ProcessorCrashSoak(configuration: soak).run() }
        #expect(report.failures.isEmpty, "\(report.failures)")
        // The schedule put three fault points into serve and killed processor serve three times.
        #expect(report.faultsArmed == 3, "\(JSONWriter.string(report.json))")
        #expect(report.faultKills.values.reduce(0, +) + report.faultsNotReached == 3)
        #expect(report.networkFaultKills.keys.sorted() == ["DROP_AFTER", "SLOW_2S", "TIMEOUT_THEN_APPROVED"], "\(JSONWriter.string(report.json))")
        #expect(report.processorRestarts >= 3)
        #expect(report.audit.intents == 6 && report.audit.ledgerEntries > 0, "\(JSONWriter.string(report.json))")
    }

    @Test("The audit's translation: an entry of an intent serve knows becomes its attempt; one it does not know stays the processor's, and is reported")
    func translationKeepsWhatServeCannotExplain() throws {
        let usd = try Currency(code: "USD")
        let known = ProcessorEffect(
            processorID: "pi_A", reference: "acct_1234/pi_A/1", operation: .refund, refundReference: "acct_1234/re_B",
            amount: Amount(minorUnits: 400, currency: usd), status: .approved, declineCode: nil, last4: nil)
        let translated = SoakLedger.translated(known, attempts: ["pi_A": "att_1"], refunds: ["re_B": "rf_1"])
        #expect(translated.reference == "att_1")
        #expect(translated.refundReference == "rf_1")

        let unknown = ProcessorEffect(
            processorID: "pi_Z", reference: "acct_1234/pi_Z/1", operation: .authorize, refundReference: nil,
            amount: Amount(minorUnits: 1000, currency: usd), status: .approved, declineCode: nil, last4: "4242")
        let kept = SoakLedger.translated(unknown, attempts: ["pi_A": "att_1"], refunds: [:])
        #expect(kept.reference == "acct_1234/pi_Z/1")
        let found = LedgerAgreement(machines: [], effects: [kept], settled: true).disagreements()
        #expect(found.count == 1 && found[0].contains("money held with no intent"), "\(found)")
    }
}
