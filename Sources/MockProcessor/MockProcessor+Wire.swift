import Foundation
import PayPanel

/// What the processor sends back over a network, before any client timeout applies: the
/// network front end (`paypanel processor serve`) turns it into an HTTP answer, a held
/// connection or a dropped one. In process, `deliver` turns the same answers into outcomes.
public enum WireAnswer: Sendable, Equatable {
    /// An answer, to be sent after `delay` (latency, plus n seconds for SLOW_<n>S).
    case answer(ProcessorOutcome, delay: Duration)
    /// No answer ever (TIMEOUT_THEN_*, CAPTURE_TIMEOUT): the client's timeout must run out.
    case noAnswer
    /// HTTP 500 after `delay`: the client cannot tell whether anything happened.
    case serverError(delay: Duration)
    /// Refused before processing (HTTP 503 or 429) after `delay`; nothing was recorded.
    case refused(status: Int, reason: String, delay: Duration)
}

extension MockProcessor {
    /// The network front end's authorize: the ledger work happens now, at `now` (the calling
    /// account's clock); the answer says what to send and when.
    ///
    /// Each of these calls returns once its ledger work is committed, not once it is durable:
    /// the caller sends nothing before the flush of everything committed to the ledger file
    /// (`Database.flushOfEverythingCommitted`), so the call's commit, the caller's own writes
    /// after it and those of every request served meanwhile share one flush.
    /// `processor serve` (`ProcessorService.answer`) is that caller: one flush wait per request,
    /// where each ledger call once waited for a flush of its own, and the account's write
    /// after it for another (docs/benchmarks.md). A commit that fails is still an answer
    /// here (`serverError`), as before; a flush that fails is the caller's to report.
    public func authorizeOverWire(_ request: AuthorizationRequest, now: Date) -> WireAnswer {
        wire { try ledger.authorize(request, now: now, configuration: configuration) }
    }

    /// Completes a pending 3-D Secure challenge (the mock's test endpoint).
    public func completeChallengeOverWire(reference: String, passed: Bool, now: Date) -> WireAnswer {
        wire { try ledger.completeChallenge(reference: reference, passed: passed, now: now, configuration: configuration) }
    }

    public func captureOverWire(_ request: CaptureRequest, now: Date) -> WireAnswer {
        wire { try ledger.capture(request, now: now) }
    }

    public func voidOverWire(reference: String, now: Date) -> WireAnswer {
        wire { try ledger.void(reference: reference, now: now) }
    }

    public func refundOverWire(_ request: RefundRequest, now: Date) -> WireAnswer {
        wire { try ledger.refund(request, now: now, configuration: configuration) }
    }

    /// What the ledger knows about `reference`, at `now`.
    public func lookupOverWire(reference: String, operation: ProcessorOperation, now: Date) async throws -> LookupResult {
        try await ledger.database.awaitingFlush { try ledger.lookup(reference: reference, operation: operation, now: now) }
    }

    /// The entries whose reference starts with `prefix` (one account's), in ledger order.
    public func ledgerEntries(referencePrefix prefix: String, now: Date) async throws -> [LedgerEntry] {
        try await ledger.database.awaitingFlush { try ledger.entries(now: now) }.filter { $0.reference.hasPrefix(prefix) }
    }

    /// Forgets every entry, chain position and cryptogram whose reference starts with `prefix`
    /// (one account's), or everything when `prefix` is nil.
    public func resetLedger(referencePrefix prefix: String?) async throws {
        try await ledger.database.awaitingFlush { try ledger.reset(referencePrefix: prefix) }
    }

    /// The ledger's connection, for `processor serve`'s account tables, which live in the
    /// ledger file: one file, one connection, one thread (`AccountStore`, whose owner runs on
    /// this processor's executor).
    package var ledgerConnection: Database { ledger.database }

    private func wire(_ operation: () throws -> ProcessorAnswer) -> WireAnswer {
        let latency = configuration.latency.delay(using: &jitter)
        let answer: ProcessorAnswer
        do {
            // The flush this needs is the caller's to await (see `authorizeOverWire`).
            answer = try ledger.database.collectingFlushes { try operation() }.0
        } catch {
            // The transaction rolled back, but the client cannot know that: a 500, look it up.
            return .serverError(delay: latency)
        }
        switch answer {
        case .outcome(let outcome, let extraDelay): return .answer(outcome, delay: latency + extraDelay)
        case .none: return .noAnswer
        case .serverError: return .serverError(delay: latency)
        case .refused(let reason):
            // The trigger's reason names its status ("HTTP 429 …" or "HTTP 503 …").
            return .refused(status: reason.hasPrefix("HTTP 429") ? 429 : 503, reason: reason, delay: latency)
        }
    }
}

extension ProcessorLedger {
    /// Deletes one account's rows (references starting with `prefix`), or all rows, in one
    /// transaction. Test tooling: a real processor never forgets.
    func reset(referencePrefix prefix: String?) throws {
        try database.write {
            guard let prefix else {
                try database.execute("DELETE FROM operations", [])
                try database.execute("DELETE FROM chain_positions", [])
                try database.execute("DELETE FROM used_cryptograms", [])
                return
            }
            // substr() rather than LIKE: the prefix may hold '%' or '_'.
            let length = prefix.unicodeScalars.count  // SQLite counts code points
            try database.execute("DELETE FROM operations WHERE substr(reference, 1, ?) = ?", [length, prefix])
            try database.execute("DELETE FROM chain_positions WHERE substr(reference, 1, ?) = ?", [length, prefix])
            try database.execute("DELETE FROM used_cryptograms WHERE substr(reference, 1, ?) = ?", [length, prefix])
        }
    }
}
