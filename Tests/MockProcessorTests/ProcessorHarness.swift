import Foundation
import MockProcessor
import PayPanel
import TestSupport

/// One test's mock processor: its own ledger file in a temporary directory, a manual clock, and
/// a sleeper that moves that clock (virtual time). `secondProcessor()` opens another instance on
/// the same file, as another process would.
final class ProcessorHarness: @unchecked Sendable {
    // Immutable after init; the processors are actors and the clock is thread-safe.
    static let start = Date(timeIntervalSince1970: 1_795_939_200)  // 2026-11-29T08:00:00Z
    let directory: TemporaryDirectory
    let clock: ManualClock
    let configuration: MockProcessorConfiguration
    let processor: MockProcessor

    init(configuration: MockProcessorConfiguration = MockProcessorConfiguration()) throws {
        directory = try TemporaryDirectory("paypanel-processor-test")
        clock = ManualClock(Self.start)
        self.configuration = configuration
        processor = try MockProcessor(
            ledgerPath: directory.file("processor.sqlite"), clock: clock, configuration: configuration,
            sleeper: ManualClockSleeper(clock: clock))
    }

    var ledgerPath: String { directory.file("processor.sqlite") }

    /// Another processor on the same ledger file and clock: what a second process sees.
    func secondProcessor() throws -> MockProcessor {
        try MockProcessor(ledgerPath: ledgerPath, clock: clock, configuration: configuration, sleeper: ManualClockSleeper(clock: clock))
    }

    /// The ledger as a fresh connection reads it (not through the processor under test).
    func entries(reference: String? = nil) throws -> [LedgerEntry] {
        try ProcessorLedger(path: ledgerPath, clock: clock).entries(reference: reference, now: clock.now())
    }

    /// Seconds of virtual time since the harness started.
    var elapsed: TimeInterval { clock.now().timeIntervalSince(Self.start) }
}

/// Request builders with readable defaults: 10.00 USD on a Visa test card, expiring 12/30.
enum Requests {
    static let usd = try! Currency(code: "USD")  // a constant of the ISO table, not input

    static func amount(_ minorUnits: Int64, _ currency: Currency = usd) -> Amount {
        Amount(minorUnits: minorUnits, currency: currency)
    }

    static func card(_ digits: String = "4242424242424242", holder: String? = nil, expiry: String = "12/30") throws -> PaymentMethodData {
        .card(number: try CardNumber(digits), expiry: try CardExpiry(expiry), holderName: holder)
    }

    static func token(
        _ cryptogram: String, generatedAt: Date?, dpan: String = "4242424242424242", holder: String? = nil
    ) throws -> PaymentMethodData {
        .networkToken(
            dpan: try CardNumber(dpan), expiry: try CardExpiry("12/30"), cryptogram: Cryptogram(cryptogram, generatedAt: generatedAt),
            eci: "07", holderName: holder)
    }

    static func authorization(
        _ reference: String, amount: Int64 = 1000, method: PaymentMethodData, scenario: String? = nil
    ) -> AuthorizationRequest {
        AuthorizationRequest(reference: reference, amount: self.amount(amount), paymentMethod: method, scenario: scenario)
    }
}

/// The callers' usual timeout in these tests.
let callerTimeout = Duration.seconds(25)

extension ProcessorOutcome {
    /// The approval, when approved.
    var approval: ProcessorApproval? {
        if case .approved(let approval) = self { return approval }
        return nil
    }

    var declineCode: DeclineCode? {
        if case .declined(let code) = self { return code }
        return nil
    }

    var isUnknown: Bool {
        if case .unknown = self { return true }
        return false
    }

    var isNotProcessed: Bool {
        if case .notProcessed = self { return true }
        return false
    }
}

extension MockProcessor {
    /// Authorizes an approved 10.00 USD payment on a Visa test card (optionally with a holder
    /// trigger) and returns the approval.
    func approvedAuthorization(_ reference: String, amount: Int64 = 1000, holder: String? = nil) async throws -> ProcessorApproval? {
        await authorize(Requests.authorization(reference, amount: amount, method: try Requests.card(holder: holder)), timeout: callerTimeout)
            .approval
    }
}
