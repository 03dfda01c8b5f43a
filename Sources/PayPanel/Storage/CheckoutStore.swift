import Foundation

/// The storage boundary of checkouts: the rows of `Checkout`, guarded by their version.
/// `PaymentStore` refines it (one database keeps both), so every payment store keeps checkouts
/// and keeps its rules here too (serializable writes, 64-bit integers, epoch-millisecond times,
/// errors without bound values or paths).
///
/// Adopters: `SQLitePaymentStore` (`SQLitePaymentStore+Checkouts.swift`) and the PostgreSQL
/// store.
public protocol CheckoutStore: AnyObject {
    /// Inserts a new checkout (version 1); its id and client-secret hash are unique.
    func insertCheckout(_ checkout: Checkout) throws
    /// The checkout `id`, or nil.
    func checkout(_ id: String) throws -> Checkout?
    /// Writes `checkout` over the row still at `previousVersion`; false when that row moved on.
    func updateCheckout(_ checkout: Checkout, previousVersion: Int64) throws -> Bool
    /// Open checkouts whose `expires_at` is at or before `now`, earliest first, at most `limit`.
    func checkoutsDueForExpiry(at now: Date, limit: Int) throws -> [Checkout]
    /// The id of the checkout whose client secret hashes to `hash`, or nil.
    func checkoutID(clientSecretHash hash: [UInt8]) throws -> String?
    /// Runs `body`, synchronous calls of this store (reads and writes), without holding the
    /// thread in them for the flushes their commits and the commits their reads saw need; then
    /// awaits those flushes at once, suspending the caller instead. It returns, as each call
    /// would, only once all of it is durable. The default runs `body`: a store whose commits are
    /// durable when they return (PostgreSQL's) has nothing to wait for.
    nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T
}

extension CheckoutStore {
    /// A store whose commits are durable when they return waits for nothing more.
    public nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try body()
    }
}

/// A checkout row this program cannot read back.
package struct CheckoutStoreError: PayPanelError, Equatable {
    package let checkoutID: String
    package let detail: String
    package var code: String { "database_corrupt_row" }
    package var message: String {
        "the payments database holds a checkouts row \(checkoutID) this program cannot read (\(detail)): restore the database from a backup"
    }
}
