import Foundation
import Synchronization

/// Remembers the transactionIds of accepted tokens so a token pays once.
///
/// Record a token only after it verified and decrypted (otherwise anyone could burn
/// transactionIds with forged tokens), and atomically: check and insert in one step (the
/// payments database does it with an INSERT into a table whose primary key is the id).
public protocol TokenReplayGuard: Sendable {
    /// Records `transactionId` (lower-case hex, as `ApplePayPaymentToken.Header` normalises it),
    /// or throws `ApplePayTokenError.replayed` when it was recorded before.
    func recordFirstUse(ofTransactionId transactionId: String, at date: Date) throws
}

/// A replay guard in memory, for tests and one-process demos. Forgets everything on exit.
public final class InMemoryTokenReplayGuard: TokenReplayGuard {
    private let seen = Mutex<[String: Date]>([:])

    public init() {}

    public func recordFirstUse(ofTransactionId transactionId: String, at date: Date) throws {
        let inserted = seen.withLock { seen in
            guard seen[transactionId] == nil else { return false }
            seen[transactionId] = date
            return true
        }
        guard inserted else { throw ApplePayTokenError.replayed(transactionId: transactionId) }
    }

    /// How many transactionIds are recorded.
    public var count: Int { seen.withLock { $0.count } }
}
