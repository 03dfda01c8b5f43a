import PayPanel
import PayPanelHTTP

/// What the server does with one request: answer (after a delay: latency, SLOW_<n>S), hold the
/// connection without ever answering (a lost answer: the client's timeout must run out), or
/// close the connection without an answer (a dropped connection).
enum Reply: Sendable {
    case respond(status: HTTPStatus, json: JSONValue, headers: HTTPHeaders = [:], delay: Duration = .zero)
    case hold
    case drop(delay: Duration)

    static func ok(_ json: JSONValue, delay: Duration = .zero) -> Reply { .respond(status: .ok, json: json, delay: delay) }

    static func error(_ error: StripeError, delay: Duration = .zero) -> Reply {
        .respond(status: error.status, json: error.json, headers: error.headers, delay: delay)
    }

    /// Whether an idempotency key keeps this answer for replay: successes and card declines.
    /// Not a 400, which Stripe does not save either (the parameters failed validation: fix them
    /// and retry with the same key), and not the faults, so that a retry after a fault reaches
    /// the ledger, whose own idempotency (one authorization per reference) answers it.
    var isReplayable: Bool {
        guard case .respond(let status, _, _, _) = self else { return false }
        return (200..<300).contains(status.code) || status.code == 402
    }
}
