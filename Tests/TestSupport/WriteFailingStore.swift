import Foundation
import PayPanel
import Synchronization

/// A `PaymentStore` that forwards everything to `base` and refuses the writes a test arms, as a
/// full disk would: the write throws `InjectedWriteFailure` and nothing of it is committed. It
/// shows what a run that cannot write leaves behind (and what its retry makes of it).
///
/// `@unchecked Sendable`: the test arms it from outside (`failNextWrites`, behind a `Mutex`),
/// while `base` is used only by whoever the store was handed to (a `PaymentService`, one
/// `IdempotencyStore`), as with any store.
public final class WriteFailingStore: PaymentStore, @unchecked Sendable {
    public let base: any PaymentStore
    /// Writes to let through before failing, and how many to fail then.
    private let plan = Mutex((skip: 0, fail: 0))
    private let refused = Mutex(0)

    public init(_ base: any PaymentStore) {
        self.base = base
    }

    /// After `skipping` more writes succeed, the next `count` writes fail.
    public func failNextWrites(_ count: Int = 1, skipping: Int = 0) {
        plan.withLock { $0 = (skip: skipping, fail: count) }
    }

    /// How many writes were refused so far.
    public var refusedWrites: Int { refused.withLock { $0 } }

    public func write<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        try refuseIfArmed()
        return try base.write(body)
    }

    public nonisolated(nonsending) func writeAwaitingFlush<T>(_ body: (any PaymentStoreTransaction) throws -> T) async throws -> T {
        try refuseIfArmed()
        return try await base.writeAwaitingFlush(body)
    }

    /// Throws when the plan says this write fails.
    private func refuseIfArmed() throws {
        let fails = plan.withLock { plan -> Bool in
            if plan.skip > 0 {
                plan.skip -= 1
                return false
            }
            guard plan.fail > 0 else { return false }
            plan.fail -= 1
            return true
        }
        if fails {
            refused.withLock { $0 += 1 }
            throw InjectedWriteFailure()
        }
    }

    public func read<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        try base.read(body)
    }

    /// The base store's: the calls in `body` reach it through this store's `read` and `write`.
    public nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try await base.awaitingFlush(body)
    }

    // Checkouts (a payment store keeps them too): writes are refused as the payments' are.

    public func insertCheckout(_ checkout: Checkout) throws {
        try refuseIfArmed()
        try base.insertCheckout(checkout)
    }

    public func checkout(_ id: String) throws -> Checkout? {
        try base.checkout(id)
    }

    public func updateCheckout(_ checkout: Checkout, previousVersion: Int64) throws -> Bool {
        try refuseIfArmed()
        return try base.updateCheckout(checkout, previousVersion: previousVersion)
    }

    public func checkoutsDueForExpiry(at now: Date, limit: Int) throws -> [Checkout] {
        try base.checkoutsDueForExpiry(at: now, limit: limit)
    }

    public func clientSecretHash(ofCheckout id: String) throws -> [UInt8]? {
        try base.clientSecretHash(ofCheckout: id)
    }
}

/// The failure of a write `WriteFailingStore` was armed to refuse.
public struct InjectedWriteFailure: PayPanelError, Equatable {
    public init() {}
    public var code: String { "injected_write_failure" }
    public var message: String { "the payments database refused the write (injected by the test, standing for a full disk)" }
}

/// Arms a `WriteFailingStore` the first time the flow reaches `point`: the write that follows —
/// after a processor call, the one that records its answer — fails once.
public final class FailWriteAtFaultPoint: FaultInjector {
    public let point: FaultPoint
    public let store: WriteFailingStore
    private let fired = Atomic(false)

    public init(_ point: FaultPoint, store: WriteFailingStore) {
        self.point = point
        self.store = store
    }

    public func reach(_ reached: FaultPoint) {
        guard reached == point, !fired.exchange(true, ordering: .relaxed) else { return }
        store.failNextWrites(1)
    }
}
