import Foundation
import PayPanel

/// One delivery of one event to one endpoint, with its attempts, for the console.
public struct WebhookDeliveryView: Sendable {
    package let event: StoredEvent
    package let delivery: WebhookDeliveryRecord
    package let attempts: [WebhookAttemptRecord]
}

extension WebhookDesk {
    /// The deliveries of the newest `eventLimit` events about `objectIDs`, newest event first,
    /// and whether older events were left out.
    func deliveries(aboutObjects objectIDs: [String], eventLimit: Int) async throws -> (views: [WebhookDeliveryView], moreEvents: Bool) {
        // The newest changes become events first, so the page shows what just happened.
        _ = try await relay?.publishPending()
        return try await stored {
            let events = try store.events(aboutObjects: objectIDs, limit: eventLimit + 1)
            var views: [WebhookDeliveryView] = []
            for event in events.prefix(eventLimit) {
                for delivery in try store.deliveries(ofEvent: event.id) {
                    views.append(WebhookDeliveryView(event: event, delivery: delivery, attempts: try store.attempts(ofDelivery: delivery.id)))
                }
            }
            return (views, events.count > eventLimit)
        }
    }
}
