import Foundation

/// The result of an idempotent operation, as stored and replayed: typed values
/// (`IdempotentPayload`), which each front end renders at its edge.
package enum IdempotentResult: Sendable, Equatable {
    /// It worked; `payload` is what it produced (e.g. the intent it created).
    case succeeded(IdempotentPayload)
    /// It ran and failed (a decline, a refused refund): replayed as the same failure.
    case failed(code: String, message: String, payload: IdempotentPayload?)

    /// What the operation produced, success or failure.
    package var payload: IdempotentPayload? {
        switch self {
        case .succeeded(let payload): payload
        case .failed(_, _, let payload): payload
        }
    }
}

/// What an idempotent call returns: the result, and whether it is a replay.
package struct IdempotentResponse: Sendable, Equatable {
    package let result: IdempotentResult
    /// True when the result was stored by an earlier request with the same key.
    package let replayed: Bool
    /// When the key was first used.
    package let firstUsedAt: Date

    /// A response, fresh or replayed.
    package init(result: IdempotentResult, replayed: Bool, firstUsedAt: Date) {
        self.result = result
        self.replayed = replayed
        self.firstUsedAt = firstUsedAt
    }
}

/// What `IdempotencyStore.reserve` found.
package enum IdempotencyReservation: Sendable, Equatable {
    /// The key is yours: run the operation, then `complete` (or `release`).
    case claimed(IdempotencyClaim)
    /// The operation ran before: return this.
    case replay(IdempotentResponse)
}

/// A claimed idempotency key, held while its operation runs.
package struct IdempotencyClaim: Sendable, Equatable {
    package let key: String
    package let scope: String
    package let requestHash: String
    /// When the key was first used (expiry counts from here).
    package let createdAt: Date
    /// Set when this claim took over from a run that crashed or failed: what that run had
    /// attached (e.g. its attempt id). Resume it; do not start a second one.
    package let recoveredResourceID: String?
    /// True when this claim took over from a run that crashed or failed.
    package let isRecovery: Bool
    /// When this run took the key (its lease starts there), at the store's precision. A run
    /// gives the key up only while the row still carries this time: a run that outlived its
    /// lease never gives up the claim of the run that took the key over meanwhile.
    package let lockedAt: Date
}

/// What `IdempotencyStore.giveUp` did with the claim of a run that did not finish.
package enum GivenUpClaim: Sendable, Equatable {
    /// Nothing was attached, so nothing was started: the key was deleted, and a retry with it
    /// runs the operation for real.
    case released
    /// The run had attached `resourceID` (its work started): the claim stays in progress, open
    /// for the next request with the key to take it over at once and resume that resource.
    case keptForResumption(resourceID: String)
    /// The key is no longer this run's (another run took it over after this one's lease ran
    /// out, or it is gone): left as it is.
    case notHeld
}

/// A keyed run failed, and the write that gives its claim up (`IdempotencyStore.giveUp`) failed
/// too (a full disk, a database that was down). The claim stays in progress as it was, so the
/// key is still protected: a retry is told the key is in progress until this process gives the
/// claim up, which it does before its next reservation once the database takes writes again;
/// if the process stops first, a retry after `lease` takes the key over and resumes what the
/// run had started (or runs the operation, when nothing was).
package struct IdempotencyClaimNotGivenUp: PayPanelError {
    package let key: String
    /// What the run threw.
    package let failure: any Error
    /// Why the claim could not be given up.
    package let giveUpFailure: any Error
    /// How long the claim keeps the key, counted from when the run took it.
    package let lease: TimeInterval

    /// The failure's own code, so callers that act on it keep working.
    package var code: String { (failure as? any PayPanelError)?.code ?? "idempotency_claim_not_given_up" }

    package var message: String {
        let shown = JSONWriter.quoted(SensitiveDigits.redacted(key))
        let giveUp = (giveUpFailure as? any PayPanelError)?.message ?? String(describing: type(of: giveUpFailure))
        let reason = (failure as? any PayPanelError)?.message ?? "the operation failed (\(type(of: failure)))"
        return "\(reason); besides, idempotency key \(shown) could not be given up yet (\(giveUp)): the server gives it up once the database takes writes again, and a retry with the same key then resumes what this request started (if the server stops first, after \(Int(lease)) s)"
    }
}

/// An idempotency key that cannot be used for this request. Nothing was run or stored.
package struct IdempotencyError: PayPanelError, Equatable {
    /// Why the key cannot be used.
    package enum Reason: Sendable, Equatable {
        /// The key was used with different parameters.
        case reused(firstUsedAt: Date, scope: String)
        /// A request with the key is still running.
        case inProgress(since: Date)
        case invalidKey(String)
        /// The stored result cannot be read back: why (`StoredFormatError.detail`).
        case unreadableResult(String)
    }

    package let key: String
    package let reason: Reason

    /// `key` cannot be used, for `reason` (a front end that reads stored results says so too).
    package init(key: String, reason: Reason) {
        self.key = key
        self.reason = reason
    }

    package var code: String {
        switch reason {
        case .reused: "idempotency_key_reused"
        case .inProgress: "idempotency_in_progress"
        case .invalidKey: "invalid_idempotency_key"
        case .unreadableResult: "idempotency_result_unreadable"
        }
    }

    package var message: String {
        let shown = JSONWriter.quoted(SensitiveDigits.redacted(key))
        switch reason {
        case .reused(let firstUsedAt, let scope):
            return "idempotency key \(shown) was already used at \(Timestamp.format(firstUsedAt)) for a \(scope) request with different parameters: use a new key for a different request"
        case .inProgress(let since):
            return "a request with idempotency key \(shown) has been in progress since \(Timestamp.format(since)): wait for it to finish, then retry with the same key to get its result"
        case .invalidKey(let problem):
            return "idempotency key \(shown) \(problem): use 1 to \(IdempotencyStore.maximumKeyLength) printable characters, such as a UUID"
        case .unreadableResult(let why):
            return "the stored result for idempotency key \(shown) cannot be read (\(why)): use a new key"
        }
    }
}
