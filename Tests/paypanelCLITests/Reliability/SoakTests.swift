import Foundation
import MockProcessor
import PayPanel
import PayPanelReliability
import TestSupport
import Testing

/// The quick versions of the crash and concurrency soaks, driven by the library against the
/// built binary (one child process per request), and the security check.
@Suite(.serialized) struct SoakTests {
    static func effects(_ path: String, at now: Date) throws -> [ProcessorEffect] {
        try ProcessorLedger(path: path, clock: ManualClock(now)).entries(now: now).map(ProcessorEffect.init)
    }

    @Test func killingFlowsAtEveryFaultPointAndAtRandomLosesNothing() throws {
        let directory = try TemporaryDirectory()
        let configuration = CrashSoakConfiguration(
            iterations: 24, seed: 5, executable: CLIRunner.binary.path(percentEncoded: false), directory: directory.path)
        let report = try CrashSoak(configuration: configuration).run(readLedger: { try Self.effects(configuration.ledgerPath, at: $0) })
        #expect(report.failures.isEmpty, "\(report.failures)")
        // Every named fault point killed a process at least once.
        #expect(Set(report.faultKills.keys) == Set(FaultSelector.names), "\(report.faultKills)")
        #expect(report.kills >= FaultSelector.names.count)
        #expect(report.audit.intents == 24 && report.audit.ledgerEntries > 24 && report.audit.events > 100)
        let leaks = report.stderrs.flatMap { CardDataDetector(secrets: ["4242424242424242", "5555555555554444"]).findings(in: $0) }
        #expect(leaks.isEmpty, "\(leaks)")
    }

    @Test func eightProcessesRacingOnOneDatabaseHaveOneWinnerEach() throws {
        let directory = try TemporaryDirectory()
        let configuration = ConcurrencySoakConfiguration(
            processes: 8, rounds: 2, seed: 9, executable: CLIRunner.binary.path(percentEncoded: false), directory: directory.path)
        let report = try ConcurrencySoak(configuration: configuration).run(
            finalTime: Date().addingTimeInterval(3600), readLedger: { try Self.effects(configuration.ledgerPath, at: $0) })
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.busyErrors == 0)
        #expect(report.processesRun >= 2 * 4 * 8)
        #expect(report.expectedRejections > 0, "the races had losers")
        #expect(report.sharedIntents.count == 2 && report.keylessIntents.count == 2)
    }

    @Test func theSecurityCheckPasses() throws {
        let directory = try TemporaryDirectory()
        let report = try SecurityRun(executable: CLIRunner.binary.path(percentEncoded: false), directory: directory.path).run()
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.checks.count >= 14)
        #expect(report.filesScanned.contains("paypanel.sqlite-wal") && report.filesScanned.contains("paypanel-processor.sqlite-wal"),
                "\(report.filesScanned)")
    }
}
