import Foundation
import MockProcessor
import PayPanel

/// The options of every command that talks to the processor, and how they become a
/// `PaymentService`.
enum CheckoutOptions {
    static let scenario = OptionSpec.value(
        "--scenario", "name", help: "Force a mock-processor scenario (a trigger such as HTTP_500_AFTER, or a chain A|B).")
    static let processorTimeout = OptionSpec.value(
        "--processor-timeout", "seconds", help: "How long a processor call may take before its outcome counts as unknown (default: 30).")

    static let reconciliationGrace = OptionSpec.value(
        "--reconciliation-grace", "seconds",
        help: "How long an authorization the processor has no record of may still be in transit before it fails (default: 300).")
    static let reconciliationDelays = OptionSpec.value(
        "--reconciliation-delays", "seconds,…",
        help: "The waits before each lookup of an unknown outcome, the last repeating (default: 30,60,120,300,600,1800).")

    static let processorURL = OptionSpec.value(
        "--processor", "url",
        help: "Talk to a processor over HTTP, e.g. http://127.0.0.1:12111 ('paypanel processor serve'), instead of the in-process mock (or $PAYPANEL_PROCESSOR_URL).")
    static let processorKey = OptionSpec.value(
        "--processor-key", "key", help: "The secret key for --processor (default: $PAYPANEL_PROCESSOR_KEY, else sk_test_paypanel).")
    static let processorURLEnvironmentVariable = "PAYPANEL_PROCESSOR_URL"
    static let processorKeyEnvironmentVariable = "PAYPANEL_PROCESSOR_KEY"

    /// Database, processor, latency, time, output.
    static let all: [OptionSpec] = [
        CommonOptions.json, CommonOptions.database, CommonOptions.processorDatabase, CommonOptions.latency,
        CommonOptions.latencySeed, processorTimeout, reconciliationGrace, reconciliationDelays, CommonOptions.now, processorURL,
        processorKey,
    ]

}

extension ParsedArguments {
    /// A payment service on the payments database and the mock processor's ledger.
    ///
    /// Time: with `--now` (or $PAYPANEL_NOW) the clock starts there and is *virtual*: the
    /// processor's delays (latency, SLOW_<n>S, a timeout running out) move it forward instead
    /// of waiting, so scripted runs are instant and repeatable. Without it, time is real.
    /// `clock`, when given, is used instead of a new one (the checkout shares it with the device).
    @MainActor
    /// `needsProcessor: false` (creating an intent) opens no processor ledger at all.
    func openPaymentService(
        environment: [String: String], clock given: (any WallClock)? = nil, needsProcessor: Bool = true,
        stores: (any PaymentStoreFactory)? = nil
    ) throws -> PaymentService {
        let clock = try given ?? clock(environment: environment)
        let sleeper: any Sleeper = (clock as? ManualClock).map { ManualClockSleeper(clock: $0) } ?? TaskSleeper()
        let processor: any PaymentProcessor
        if !needsProcessor {
            processor = NoProcessor()
        } else if let http = try httpProcessor(environment: environment) {
            processor = http
        } else {
            processor = try openMockProcessor(environment: environment, clock: clock, sleeper: sleeper)
        }
        var configuration = PaymentServiceConfiguration()
        if spec.option(named: CheckoutOptions.processorTimeout.name) != nil, let text = value(CheckoutOptions.processorTimeout.name) {
            guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
                throw UsageError("'--processor-timeout' takes a number of seconds from more than 0 to 600, not '\(text)'")
            }
            configuration.processorTimeout = .milliseconds(Int64(seconds * 1000))
        }
        try applyReconciliationOptions(to: &configuration.policy)
        let stores = try stores ?? openStoreFactory(environment: environment, clock: clock)
        // $PAYPANEL_FAULT and $PAYPANEL_STORE_FAULT (tests and the crash soak) arm fault points.
        let faults: EnvironmentFaultInjector
        do {
            faults = try EnvironmentFaultInjector(environment: environment)
        } catch {
            throw UsageError(error.message)
        }
        return PaymentService(
            store: try stores.openPaymentStore(), processor: processor, clock: clock, configuration: configuration, faults: faults)
    }
}

extension ParsedArguments {
    /// `--reconciliation-grace` and `--reconciliation-delays`, when given (tests and soaks that
    /// cannot wait minutes for a lost authorization to fail use short ones).
    func applyReconciliationOptions(to policy: inout PaymentPolicy) throws {
        let limit: TimeInterval = 7 * 24 * 3600
        if spec.option(named: CheckoutOptions.reconciliationGrace.name) != nil, let text = value(CheckoutOptions.reconciliationGrace.name) {
            guard let seconds = TimeInterval(text), seconds >= 0, seconds <= limit else {
                throw UsageError("'--reconciliation-grace' takes a number of seconds from 0 to \(Int(limit)), not \(JSONWriter.quoted(text))")
            }
            policy.reconciliationGrace = seconds
        }
        if spec.option(named: CheckoutOptions.reconciliationDelays.name) != nil, let text = value(CheckoutOptions.reconciliationDelays.name) {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            let delays = parts.compactMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 && $0 <= limit }
            guard !parts.isEmpty, parts.count <= 20, delays.count == parts.count else {
                throw UsageError("'--reconciliation-delays' takes 1 to 20 comma-separated numbers of seconds, each more than 0 and at most \(Int(limit)), e.g. 30,60,120; not \(JSONWriter.quoted(text))")
            }
            policy.reconciliationDelays = delays
        }
    }

    /// The processor over HTTP when `--processor` (or $PAYPANEL_PROCESSOR_URL) names one; nil
    /// for the in-process mock, the default.
    func httpProcessor(environment: [String: String]) throws -> HTTPPaymentProcessor? {
        let option = spec.option(named: CheckoutOptions.processorURL.name) != nil ? value(CheckoutOptions.processorURL.name) : nil
        guard let text = option ?? environment[CheckoutOptions.processorURLEnvironmentVariable], !text.isEmpty else { return nil }
        let endpoint: ProcessorEndpoint
        do {
            endpoint = try ProcessorEndpoint(text)
        } catch {
            throw UsageError("'--processor' (or $\(CheckoutOptions.processorURLEnvironmentVariable)): \(error.message)")
        }
        let keyOption = spec.option(named: CheckoutOptions.processorKey.name) != nil ? value(CheckoutOptions.processorKey.name) : nil
        let key = keyOption ?? environment[CheckoutOptions.processorKeyEnvironmentVariable] ?? "sk_test_paypanel"
        guard !key.isEmpty, key.utf8.count <= 255, !key.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw UsageError("'--processor-key' must be a key without spaces, up to 255 characters")
        }
        return HTTPPaymentProcessor(endpoint: endpoint, secretKey: key)
    }
}

/// The processor of a command that never calls one (`payments create`): opening the mock's
/// ledger would create a file for nothing. Every call would be "not processed".
struct NoProcessor: PaymentProcessor {
    private static let reason = "this command has no processor"
    func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: Self.reason) }
    func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: Self.reason) }
    func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: Self.reason) }
    func void(reference: String, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: Self.reason) }
    func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome { .notProcessed(reason: Self.reason) }
    func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult { .unavailable(reason: Self.reason) }
}
