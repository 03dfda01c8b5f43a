import Foundation
import PayPanel

/// The webhook tables through the actor that owns the ledger connection (the network front end,
/// `paypanel processor serve`, registers endpoints, enqueues events and delivers them).
extension MockProcessor {
    public func addWebhookEndpoint(_ endpoint: MockWebhookEndpointRow) throws {
        try ledger.insertEndpoint(endpoint)
    }

    /// One account's endpoints, newest first.
    public func webhookEndpoints(account: String) throws -> [MockWebhookEndpointRow] {
        try ledger.endpoints(account: account)
    }

    /// False when the account has no endpoint `id`.
    public func deleteWebhookEndpoint(id: String, account: String) throws -> Bool {
        try ledger.deleteEndpoint(id: id, account: account)
    }

    /// Stores the event with a delivery to each of the account's endpoints that wants it,
    /// first due at `dueAt` (on the account's clock). Returns the number of deliveries.
    @discardableResult
    public func enqueueWebhookEvent(id: String, account: String, type: String, body: [UInt8], createdAt: Date, dueAt: Date) throws -> Int {
        try ledger.enqueueEvent(id: id, account: account, type: type, body: body, createdAt: createdAt, dueAt: dueAt)
    }

    /// Pending deliveries, earliest due first.
    public func pendingWebhookDeliveries(limit: Int) throws -> [MockWebhookDelivery] {
        try ledger.pendingDeliveries(limit: limit)
    }

    /// `status`: `delivered`, `pending` (with the retry's time) or `failed`.
    public func recordWebhookAttempt(
        eventID: String, endpointID: String, status: String, nextAttemptAt: Date?, httpStatus: Int?, error: String?
    ) throws {
        try ledger.recordAttempt(eventID: eventID, endpointID: endpointID, status: status, nextAttemptAt: nextAttemptAt, httpStatus: httpStatus, error: error)
    }

    /// Every delivery of one account's events, oldest event first.
    public func webhookDeliveries(account: String) throws -> [MockWebhookDeliveryState] {
        try ledger.deliveries(account: account)
    }

    /// Sends the account's event `id` again (every endpoint it went to), due at `now`.
    public func resendWebhookEvent(id: String, account: String, now: Date) throws -> Int {
        try ledger.resendEvent(id: id, account: account, now: now)
    }

    /// Forgets one account's webhook events (not its endpoints), or everyone's (`nil`).
    public func resetWebhooks(account: String?) throws {
        try ledger.resetWebhooks(account: account)
    }
}
