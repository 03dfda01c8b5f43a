import Foundation
import PayPanel

/// What the server's worker does on each pass besides reconciling payments, assembled here so
/// that anyone embedding the server gets the same duties `paypanel serve` runs: open checkouts
/// past their `expires_at` expire, due pushes are sent, and the webhook relay is started.
/// Each is optional (a server without push credentials still expires checkouts).
package struct WorkerDuties: Sendable {
    /// Expires checkouts past their deadline (`CheckoutDesk.expireDue`).
    package var checkouts: CheckoutDesk?
    /// Sends due push deliveries (`PushOutbox.drain`).
    package var pushes: PushOutbox?
    /// Publishes and delivers webhook events (`WebhookRelay.kick`): started, never waited for,
    /// so a slow endpoint never holds up timers and lookups.
    package var webhooks: WebhookRelay?

    package init(checkouts: CheckoutDesk? = nil, pushes: PushOutbox? = nil, webhooks: WebhookRelay? = nil) {
        self.checkouts = checkouts
        self.pushes = pushes
        self.webhooks = webhooks
    }

    /// Runs each duty once, before the pass's reconciliation. A duty that fails is reported and
    /// the others still run.
    func run(report: @escaping @Sendable (WorkerEvent) -> Void) async {
        if let checkouts {
            do {
                _ = try await checkouts.expireDue()
            } catch {
                report(.checkoutExpiryFailed(error))
            }
        }
        if let pushes {
            do {
                let attempted = try await pushes.drain()
                if !attempted.isEmpty { report(.pushed(attempted)) }
            } catch {
                report(.pushFailed(error))
            }
        }
        await webhooks?.kick { relayed, error in
            if let error {
                report(.webhooksFailed(error))
            } else if let relayed {
                report(.webhooksRelayed(relayed))
            }
        }
    }
}

/// What a worker pass did or met, for the server's log: only passes that did something, and
/// every failure. The front end decides how each is written.
package enum WorkerEvent: Sendable {
    /// Timers fired or outcomes looked up.
    case reconciled(ReconciliationReport)
    case reconcileFailed(any Error)
    /// The sweep of expired checkouts failed (a store fault); it runs again next pass.
    case checkoutExpiryFailed(any Error)
    /// Push deliveries attempted, in their new state.
    case pushed([PushDelivery])
    case pushFailed(any Error)
    /// A webhook relay pass that did something.
    case webhooksRelayed(RelayPassReport)
    case webhooksFailed(any Error)
}
