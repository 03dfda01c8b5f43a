import Foundation
import MockProcessor
import PayPanel

/// Sends the mock's webhook events (`ProcessorService+WebhookEvents`) in the background: each
/// pending delivery whose time has come on its account's clock is signed
/// (`Stripe-Signature: t=<account clock>,v1=<HMAC-SHA256 of "t.body">`) and posted; a 2xx is
/// delivered, anything else is retried on the account's clock (`retryDelays`), and after the
/// last attempt it is marked failed. The rows are in the ledger file, so a restart goes on
/// where the last process stopped (a crash between sending and recording sends again: the
/// receiver dedupes by the event id, as it must with Stripe).
///
/// Loopback and private addresses are allowed: this is a test tool, and its receivers are
/// `serve` processes on the same machine.
extension ProcessorService {
    /// The waits before the 2nd, 3rd, … attempt; after the last, the delivery fails. Bounded
    /// and short compared with Stripe's three days: tests fast-forward them with the test clock.
    static let retryDelays: [TimeInterval] = [5, 30, 120, 600, 3600, 6 * 3600]
    /// Each attempt's time limit (real time: the receiver is a real process).
    static let webhookTimeout: Duration = .seconds(10)
    /// Deliveries looked at per pass.
    static let deliveriesPerPass = 100

    /// One pass: every due delivery, one after another. Returns how many attempts were made.
    @discardableResult
    func deliverDueWebhooks(transport: any WebhookTransport) async -> Int {
        guard let pending = try? await mock.pendingWebhookDeliveries(limit: Self.deliveriesPerPass) else { return 0 }
        var attempted = 0
        for delivery in pending {
            let now = now(delivery.account)
            guard delivery.nextAttemptAt <= now else { continue }
            attempted += 1
            guard let secret = try? webhookBox.open(delivery.sealedSecret, endpointID: delivery.endpointID, version: 1) else {
                try? await mock.recordWebhookAttempt(
                    eventID: delivery.eventID, endpointID: delivery.endpointID, status: "failed", nextAttemptAt: nil, httpStatus: nil,
                    error: "the endpoint's secret does not open with this ledger's .webhook-key file")
                continue
            }
            let timestamp = now.unixSeconds
            let headers = [
                ("Content-Type", "application/json; charset=utf-8"),
                ("Stripe-Signature", StripeWebhookSignature.header(timestamp: timestamp, body: delivery.body, secret: secret.revealed)),
            ]
            let result = await transport.post(url: delivery.url, headers: headers, body: delivery.body, timeout: Self.webhookTimeout)
            var httpStatus: Int?
            var failure: String?
            var retryAfter: TimeInterval?
            switch result {
            case .response(let status, let after):
                httpStatus = status
                retryAfter = after
                if (200..<300).contains(status) {
                    try? await mock.recordWebhookAttempt(
                        eventID: delivery.eventID, endpointID: delivery.endpointID, status: "delivered", nextAttemptAt: nil, httpStatus: status, error: nil)
                    continue
                }
                failure = "HTTP \(status)"
            case .failed(let reason):
                failure = reason
            }
            let attemptsMade = delivery.attempts + 1
            if attemptsMade > Self.retryDelays.count {
                try? await mock.recordWebhookAttempt(
                    eventID: delivery.eventID, endpointID: delivery.endpointID, status: "failed", nextAttemptAt: nil, httpStatus: httpStatus, error: failure)
            } else {
                let wait = max(Self.retryDelays[attemptsMade - 1], min(retryAfter ?? 0, 3600))
                // From the account's time now (it may have moved during the attempt).
                let next = self.now(delivery.account).addingTimeInterval(wait)
                try? await mock.recordWebhookAttempt(
                    eventID: delivery.eventID, endpointID: delivery.endpointID, status: "pending", nextAttemptAt: next, httpStatus: httpStatus, error: failure)
            }
        }
        return attempted
    }
}
