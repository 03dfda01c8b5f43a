import Foundation

/// The result of an idempotent operation, as stored and replayed.
public enum IdempotentResult: Sendable, Equatable {
    /// It worked; `body` is the response (e.g. the intent's JSON).
    case succeeded(JSONValue)
    /// It ran and failed (a decline, a refused refund): replayed as the same failure.
    case failed(code: String, message: String, body: JSONValue?)
}

/// What an idempotent call returns: the result, and whether it is a replay.
public struct IdempotentResponse: Sendable, Equatable {
    public let result: IdempotentResult
    /// True when the result was stored by an earlier request with the same key.
    public let replayed: Bool
    /// When the key was first used.
    public let firstUsedAt: Date

    /// A response, fresh or replayed.
    public init(result: IdempotentResult, replayed: Bool, firstUsedAt: Date) {
        self.result = result
        self.replayed = replayed
        self.firstUsedAt = firstUsedAt
    }
}

/// What `IdempotencyStore.reserve` found.
public enum IdempotencyReservation: Sendable, Equatable {
    /// The key is yours: run the operation, then `complete` (or `release`).
    case claimed(IdempotencyClaim)
    /// The operation ran before: return this.
    case replay(IdempotentResponse)
}

/// A claimed idempotency key, held while its operation runs.
public struct IdempotencyClaim: Sendable, Equatable {
    public let key: String
    public let scope: String
    public let requestHash: String
    /// When the key was first used (expiry counts from here).
    public let createdAt: Date
    /// Set when this claim took over from a crashed run: what that run had attached (e.g. its
    /// attempt id). Resume it; do not start a second one.
    public let recoveredResourceID: String?
    /// True when this claim took over from a crashed run.
    public let isRecovery: Bool
}

/// An idempotency key that cannot be used for this request. Nothing was run or stored.
public struct IdempotencyError: PayPanelError, Equatable {
    /// Why the key cannot be used.
    public enum Reason: Sendable, Equatable {
        /// The key was used with different parameters.
        case reused(firstUsedAt: Date, scope: String)
        /// A request with the key is still running.
        case inProgress(since: Date)
        case invalidKey(String)
        /// The stored result cannot be read back (the database was edited).
        case unreadableResult
    }

    public let key: String
    public let reason: Reason

    public var code: String {
        switch reason {
        case .reused: "idempotency_key_reused"
        case .inProgress: "idempotency_in_progress"
        case .invalidKey: "invalid_idempotency_key"
        case .unreadableResult: "idempotency_result_unreadable"
        }
    }

    public var message: String {
        let shown = JSONWriter.quoted(SensitiveDigits.redacted(key))
        switch reason {
        case .reused(let firstUsedAt, let scope):
            return "idempotency key \(shown) was already used at \(Timestamp.format(firstUsedAt)) for a \(scope) request with different parameters: use a new key for a different request"
        case .inProgress(let since):
            return "a request with idempotency key \(shown) has been in progress since \(Timestamp.format(since)): wait for it to finish, then retry with the same key to get its result"
        case .invalidKey(let problem):
            return "idempotency key \(shown) \(problem): use 1 to \(IdempotencyStore.maximumKeyLength) printable characters, such as a UUID"
        case .unreadableResult:
            return "the stored result for idempotency key \(shown) cannot be read: the database was modified by hand; use a new key"
        }
    }
}
