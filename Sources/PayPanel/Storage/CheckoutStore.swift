import Foundation

/// The storage boundary of checkouts: the rows of `Checkout`, guarded by their version.
/// `PaymentStore` refines it (one database keeps both), so every payment store keeps checkouts
/// and keeps its rules here too (serializable writes, 64-bit integers, epoch-millisecond times,
/// errors without bound values or paths).
///
/// Adopters: `SQLitePaymentStore` (`SQLitePaymentStore+Checkouts.swift`) and the PostgreSQL
/// store.
public protocol CheckoutStore: FlushAwaitingStore {
    /// Inserts a new checkout (version 1); its id and client-secret hash are unique.
    func insertCheckout(_ checkout: Checkout) throws
    /// The checkout `id`, or nil.
    func checkout(_ id: String) throws -> Checkout?
    /// Writes `checkout` over the row still at `previousVersion`; false when that row moved on.
    func updateCheckout(_ checkout: Checkout, previousVersion: Int64) throws -> Bool
    /// Open checkouts whose `expires_at` is at or before `now`, earliest first, at most `limit`.
    func checkoutsDueForExpiry(at now: Date, limit: Int) throws -> [Checkout]
    /// The SHA-256 of checkout `id`'s client secret, or nil when there is no such checkout:
    /// what a device's Bearer token is checked against, without reading (and validating) the
    /// whole row.
    func clientSecretHash(ofCheckout id: String) throws -> [UInt8]?
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
