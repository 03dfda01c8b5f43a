import Foundation
import PayPanel
import TestSupport
import Testing

/// `CheckoutStore` on SQLite (Migrations/0005_checkouts.sql): rows round-trip, writes are
/// guarded by the version they read, the worker's sweep lists only open checkouts that are due.
@Suite struct CheckoutStoreTests {
    static let start = Date(timeIntervalSince1970: 1_795_939_200)

    static func checkout(_ id: String, expiresIn seconds: TimeInterval?, secret: String) -> Checkout {
        var panel = PanelConfig.seed
        panel.expiresAt = seconds.map { start.addingTimeInterval($0) }
        return Checkout(
            id: id, status: .open, panel: panel, captureMethod: .manual, paymentIntentID: nil,
            clientSecretHash: SHA256.hash(secret), createdAt: start, updatedAt: start, version: 1)
    }

    @Test func rowsRoundTripAndUpdatesAreGuardedByVersion() throws {
        let directory = try TemporaryDirectory("paypanel-checkout-store")
        let store = try SQLitePaymentStore(path: directory.file("payments.sqlite"), clock: ManualClock(Self.start))
        let id = "co_AAAAAAAAAAAAAAAAAAAAAAAA"
        let original = Self.checkout(id, expiresIn: 60, secret: "s1")
        try store.insertCheckout(original)
        #expect(try store.checkout(id) == original)
        #expect(try store.clientSecretHash(ofCheckout: id) == SHA256.hash("s1"))
        #expect(try store.clientSecretHash(ofCheckout: "co_BBBBBBBBBBBBBBBBBBBBBBBB") == nil)
        #expect(throws: (any Error).self) { try store.insertCheckout(original) }

        var changed = original
        changed.panel.amountOptions = [100, 200]
        changed.version = 2
        #expect(try store.updateCheckout(changed, previousVersion: 1))
        #expect(try store.updateCheckout(changed, previousVersion: 1) == false)
        #expect(try store.checkout(id)?.amountOptions == [100, 200])
    }

    @Test func theSweepListsOnlyOpenCheckoutsThatAreDue() throws {
        let directory = try TemporaryDirectory("paypanel-checkout-store")
        let store = try SQLitePaymentStore(path: directory.file("payments.sqlite"), clock: ManualClock(Self.start))
        try store.insertCheckout(Self.checkout("co_AAAAAAAAAAAAAAAAAAAAAAA1", expiresIn: 60, secret: "a"))
        try store.insertCheckout(Self.checkout("co_AAAAAAAAAAAAAAAAAAAAAAA2", expiresIn: 30, secret: "b"))
        try store.insertCheckout(Self.checkout("co_AAAAAAAAAAAAAAAAAAAAAAA3", expiresIn: nil, secret: "c"))
        var canceled = Self.checkout("co_AAAAAAAAAAAAAAAAAAAAAAA4", expiresIn: 10, secret: "d")
        try store.insertCheckout(canceled)
        canceled.status = .canceled
        canceled.version = 2
        #expect(try store.updateCheckout(canceled, previousVersion: 1))

        #expect(try store.checkoutsDueForExpiry(at: Self.start.addingTimeInterval(29), limit: 10).isEmpty)
        #expect(try store.checkoutsDueForExpiry(at: Self.start.addingTimeInterval(60), limit: 10).map(\.id)
            == ["co_AAAAAAAAAAAAAAAAAAAAAAA2", "co_AAAAAAAAAAAAAAAAAAAAAAA1"])
        #expect(try store.checkoutsDueForExpiry(at: Self.start.addingTimeInterval(60), limit: 1).count == 1)
    }
}
