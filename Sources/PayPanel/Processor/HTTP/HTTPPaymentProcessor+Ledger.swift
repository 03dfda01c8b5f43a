import Foundation

// The processor's own ledger over HTTP, for the console: `paypanel processor serve` keeps one
// and shows it at `GET /_mock/ledger` (the caller's account only). A real Stripe-compatible
// processor has no such endpoint: that is reported as unavailable, never as an empty ledger.
extension HTTPPaymentProcessor: ProcessorLedgerReading {
    /// How long the console waits for the processor (the intent page must not hang on it).
    static let ledgerTimeout: Duration = .seconds(10)

    package func entries(ofAttempts attemptIDs: [String]) async -> ProcessorLedgerView {
        let deadline = ContinuousClock.now + Self.ledgerTimeout
        // The mock server's ledger is keyed by its own PaymentIntent ids ("pi_…/1"): find each
        // attempt's intent at the processor first (its metadata[attempt_id]).
        var attemptOfIntent: [String: String] = [:]
        for attemptID in attemptIDs {
            switch await search(attemptID: attemptID, deadline: deadline) {
            case .found(let intent):
                if let id = intent["id"]?.stringValue { attemptOfIntent[id] = attemptID }
            case .notFound:
                continue
            case .unavailable(let reason):
                return .unavailable(reason: "the processor at \(endpoint) could not be searched for the attempts: \(reason)")
            }
        }
        guard !attemptOfIntent.isEmpty else { return .rows([]) }
        switch await call("GET", "/_mock/ledger", form: [], deadline: deadline) {
        case .object(let list):
            let rows = (list["data"]?.arrayValue ?? []).compactMap { Self.ledgerRow($0, attemptOfIntent: attemptOfIntent) }
            return .rows(rows)
        case .stripeError(let status, _):
            return .unavailable(reason: "the processor at \(endpoint) has no ledger endpoint this program can read (GET /_mock/ledger answered HTTP \(status)); read the processor's own records there")
        case .failure(let outcome):
            return .unavailable(reason: "the processor's ledger at \(endpoint) could not be read: \(Self.spoken(outcome))")
        }
    }

    /// One `/_mock/ledger` entry of one of the attempts' processor intents, or nil.
    static func ledgerRow(_ entry: JSONValue, attemptOfIntent: [String: String]) -> ProcessorLedgerRow? {
        guard let reference = entry["reference"]?.stringValue, let slash = reference.firstIndex(of: "/"),
              let attemptID = attemptOfIntent[String(reference[..<slash])],
              let processorID = entry["processorId"]?.stringValue, let operation = entry["operation"]?.stringValue,
              let amount = entry["amount"]?.int64Value, let currency = entry["currency"]?.stringValue,
              let status = entry["status"]?.stringValue
        else { return nil }
        return ProcessorLedgerRow(
            processorID: processorID, reference: attemptID, operation: operation, refundReference: entry["refundReference"]?.stringValue,
            amount: amount, currency: currency, status: status, declineCode: entry["declineCode"]?.stringValue,
            network: entry["network"]?.stringValue, last4: entry["last4"]?.stringValue,
            createdAt: entry["createdAt"]?.stringValue.flatMap { try? Timestamp.parse($0) })
    }

    private static func spoken(_ outcome: ProcessorOutcome) -> String {
        switch outcome {
        case .notProcessed(let reason), .unknown(let reason): reason
        default: "the processor refused the request"
        }
    }
}
