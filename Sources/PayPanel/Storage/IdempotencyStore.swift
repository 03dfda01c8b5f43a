import Foundation
import Synchronization

/// Idempotency keys with Stripe's semantics, per `(key, scope)`:
/// - the first result is stored and replayed, failures (declines) included;
/// - the same key with different parameters is refused (`idempotency_key_reused`);
/// - a duplicate that arrives while the first is still running is refused
///   (`idempotency_in_progress`);
/// - keys expire `lifetime` (24 h) after first use, by the injected clock.
///
/// A result is stored only once the operation ran. When it fails instead, one rule decides what
/// becomes of the key (`giveUp`), whatever failed and wherever: once the work started — the
/// operation attached what it created (an attempt, a refund, the intent it moved) to the claim,
/// in the transaction that created it, before any processor call — the key is never deleted.
/// Its claim stays in progress and the next request with the key takes it over at once and
/// resumes that resource, as after a crash; it never starts the work a second time. Only a
/// claim with nothing attached is deleted, so the retry runs for real.
///
/// Two ways in. `perform` runs a body that is one database transaction (creating an intent)
/// inside the same write as the key check: concurrent duplicates simply queue on the write
/// lock and replay the winner's result, so they never see "in progress". `run` (or `reserve`
/// / `complete` / `giveUp`) is for operations that call the processor between transactions:
/// the claim is committed first, so a concurrent duplicate sees it and is refused.
package final class IdempotencyStore {
    /// The payments store, so keys commit with what they protect.
    package let store: any PaymentStore
    /// How long a key is remembered (24 h).
    package let lifetime: TimeInterval
    /// A claim older than this is taken to belong to a crashed process and may be reclaimed;
    /// the reclaiming run sees the crashed run's `resourceID` and must resume, not restart.
    /// (A run that fails without crashing gives its claim up at once: `giveUp`.)
    package let inProgressLease: TimeInterval

    /// The `lockedAt` of a claim no run holds: its run failed after attaching a resource and
    /// gave it up (`giveUp`). The next request with the key takes it over without waiting for
    /// the lease, which only exists to protect a run that may still be alive.
    static let lockTimeOfResumableClaim = Date(timeIntervalSince1970: 0)

    /// Claims whose give-up could not be written (the database was down, the disk full). The
    /// run that held each has stopped, and this process knows it, so it gives them up at the
    /// next chance — before its next reservation — instead of leaving the key to its lease: a
    /// client retrying once the database is back gets its answer, not minutes of
    /// `idempotency_key_in_use`. Only a crash (which loses this list) leaves a claim to the lease.
    private let owedGiveUps = Mutex<[IdempotencyClaim]>([])

    /// Keys kept in `store`.
    package init(store: any PaymentStore, lifetime: TimeInterval = 24 * 3600, inProgressLease: TimeInterval = 5 * 60) {
        self.store = store
        self.lifetime = lifetime
        self.inProgressLease = inProgressLease
    }

    /// The longest key accepted (Stripe's limit).
    package static let maximumKeyLength = 255

    // MARK: - One transaction

    /// Runs `body` once per `(key, scope)`: checks the key, runs the body and stores its result
    /// in ONE write transaction, the one `body` is handed. Without a key the body simply runs
    /// (in a transaction of its own).
    package func perform(
        key: String?, scope: String, parameters: JSONValue, at now: Date,
        _ body: (any PaymentStoreTransaction) throws -> IdempotentResult
    ) throws -> IdempotentResponse {
        guard let key else {
            return IdempotentResponse(result: try store.write(body), replayed: false, firstUsedAt: now)
        }
        try IdempotencyStore.validate(key)
        settleOwedGiveUps()
        let hash = IdempotencyStore.requestHash(parameters)
        return try store.write { transaction in
            switch try lookUp(key: key, scope: scope, hash: hash, at: now, in: transaction) {
            case .replay(let response): return response
            case .inProgress(let since): throw IdempotencyError(key: key, reason: .inProgress(since: since))
            case .resumable(let record): throw IdempotencyError(key: key, reason: .inProgress(since: record.createdAt))
            case .absent: break
            }
            let result = try body(transaction)
            try transaction.insertIdempotencyRecord(IdempotencyRecord(
                key: key, scope: scope, requestHash: hash, state: .completed, result: Self.stored(result), createdAt: now,
                lockedAt: nil, resourceID: nil))
            return IdempotentResponse(result: result, replayed: false, firstUsedAt: now)
        }
    }

    // MARK: - Several transactions

    /// Runs `body` once per `(key, scope)` around processor calls: claims the key (committed,
    /// so duplicates see it), runs the body, stores its result. When the body throws, or its
    /// result cannot be stored, the claim is given up by the one rule (`giveUp`): released if
    /// the body attached nothing, kept for the next request to resume otherwise. The error is
    /// rethrown as it was, unless giving the claim up failed too: then it comes wrapped in
    /// `IdempotencyClaimNotGivenUp`, which says so. Runs on the caller's actor
    /// (`PaymentService`), so the store never leaves it.
    package func run(
        key: String?, scope: String, parameters: JSONValue, clock: any WallClock,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (IdempotencyClaim?) async throws -> IdempotentResult
    ) async throws -> IdempotentResponse {
        guard let key else { return IdempotentResponse(result: try await body(nil), replayed: false, firstUsedAt: clock.now()) }
        let claim: IdempotencyClaim
        switch try reserve(key: key, scope: scope, parameters: parameters, at: clock.now()) {
        case .replay(let response): return response
        case .claimed(let newClaim): claim = newClaim
        }
        let result: IdempotentResult
        do {
            result = try await body(claim)
        } catch {
            throw giveUp(claim, after: error)
        }
        do {
            try complete(claim, with: result, at: clock.now())
        } catch {
            // The work is done but its answer is not stored: what it attached is resumed by
            // the retry, which then answers from it.
            throw giveUp(claim, after: error)
        }
        return IdempotentResponse(result: result, replayed: false, firstUsedAt: claim.createdAt)
    }

    /// Claims `(key, scope)`, or returns the stored result to replay. Throws
    /// `idempotency_key_reused` or `idempotency_in_progress`. `lease` replaces
    /// `inProgressLease` for this operation (a caller whose operations cannot all resume keeps
    /// a longer one for those).
    package func reserve(
        key: String, scope: String, parameters: JSONValue, at now: Date, lease: TimeInterval? = nil
    ) throws -> IdempotencyReservation {
        try IdempotencyStore.validate(key)
        settleOwedGiveUps()
        let hash = IdempotencyStore.requestHash(parameters)
        let lockedAt = PaymentLedger.storedPrecision(now)
        return try store.write { transaction in
            switch try lookUp(key: key, scope: scope, hash: hash, at: now, in: transaction) {
            case .replay(let response):
                return .replay(response)
            case .inProgress(let since):
                // A claim past its lease belongs to a process that died: take it over.
                guard now.timeIntervalSince(since) >= lease ?? inProgressLease else {
                    throw IdempotencyError(key: key, reason: .inProgress(since: since))
                }
                let record = try transaction.idempotencyRecord(key: key, scope: scope)
                return try takeOver(record, key: key, scope: scope, hash: hash, lockedAt: lockedAt, in: transaction)
            case .resumable(let record):
                // Its run failed after starting the work and gave it up: nobody holds it.
                return try takeOver(record, key: key, scope: scope, hash: hash, lockedAt: lockedAt, in: transaction)
            case .absent:
                try transaction.insertIdempotencyRecord(IdempotencyRecord(
                    key: key, scope: scope, requestHash: hash, state: .inProgress, result: nil, createdAt: now, lockedAt: lockedAt,
                    resourceID: nil))
                return .claimed(IdempotencyClaim(
                    key: key, scope: scope, requestHash: hash, createdAt: now, recoveredResourceID: nil, isRecovery: false,
                    lockedAt: lockedAt))
            }
        }
    }

    /// Stores the claim's result; later requests with the key replay it.
    package func complete(_ claim: IdempotencyClaim, with result: IdempotentResult, at now: Date) throws {
        try store.write { transaction in
            try transaction.completeIdempotencyClaim(
                key: claim.key, scope: claim.scope, requestHash: claim.requestHash, result: Self.stored(result), at: now)
        }
    }

    /// Gives up the claim of a run that will not store a result (it failed, or its result could
    /// not be stored). The one rule, read from the row in one write, so it sees exactly what
    /// the run committed:
    /// - nothing attached: nothing was started, the key is deleted and the retry runs for real;
    /// - a resource attached: the work started (the processor may have been called), so the key
    ///   is kept, in progress, and opened for the next request to take it over at once and
    ///   resume that resource. Not waiting for the lease: this run says it has stopped, and
    ///   the lease exists only for runs that cannot say so (a crash); a client retrying at once
    ///   gets its answer instead of "in progress" for minutes. Resuming is safe at once because
    ///   it only looks the resource up and finishes it, never sends it again.
    ///
    /// A claim another run took over meanwhile is left alone (`notHeld`). Throws when the write
    /// fails: the claim then stays in progress as it was, and is given up again before this
    /// store's next reservation (`owedGiveUps`); after a crash, the lease frees it.
    @discardableResult
    package func giveUp(_ claim: IdempotencyClaim) throws -> GivenUpClaim {
        do {
            return try writeGiveUp(claim)
        } catch {
            owedGiveUps.withLock { $0.append(claim) }
            throw error
        }
    }

    /// Gives up the claims owed from earlier failures; those that fail again stay owed. A
    /// failure here is not the caller's: its own write will meet the same condition and say so.
    private func settleOwedGiveUps() {
        let owed = owedGiveUps.withLock { owed in
            defer { owed.removeAll() }
            return owed
        }
        guard !owed.isEmpty else { return }
        let stillOwed = owed.filter { claim in (try? writeGiveUp(claim)) == nil }
        if !stillOwed.isEmpty { owedGiveUps.withLock { $0.append(contentsOf: stillOwed) } }
    }

    /// The give-up's one write (see `giveUp`).
    private func writeGiveUp(_ claim: IdempotencyClaim) throws -> GivenUpClaim {
        try store.write { transaction in
            guard let record = try transaction.idempotencyRecord(key: claim.key, scope: claim.scope), record.state == .inProgress,
                  let lockedAt = record.lockedAt,
                  Timestamp.epochMilliseconds(lockedAt) == Timestamp.epochMilliseconds(claim.lockedAt)
            else { return .notHeld }
            guard let resourceID = record.resourceID else {
                try transaction.deleteIdempotencyRecord(key: claim.key, scope: claim.scope, onlyInProgress: true)
                return .released
            }
            try transaction.relockIdempotencyClaim(key: claim.key, scope: claim.scope, at: Self.lockTimeOfResumableClaim)
            return .keptForResumption(resourceID: resourceID)
        }
    }

    /// `giveUp`, for a run that threw `error`: the error to throw on, which is `error` itself
    /// unless the claim could not be given up either.
    private func giveUp(_ claim: IdempotencyClaim, after error: any Error) -> any Error {
        do {
            try giveUp(claim)
            return error
        } catch let giveUpFailure {
            return IdempotencyClaimNotGivenUp(key: claim.key, failure: error, giveUpFailure: giveUpFailure, lease: inProgressLease)
        }
    }

    /// Records what the claimed operation created (e.g. the attempt id) as its recovery
    /// point, so a run that reclaims the key after a crash resumes it instead of starting over.
    /// Pass the transaction that creates the resource, so the two commit together.
    package func attach(resourceID: String, to claim: IdempotencyClaim, in transaction: (any PaymentStoreTransaction)? = nil) throws {
        if let transaction {
            try transaction.attachIdempotencyResource(resourceID, key: claim.key, scope: claim.scope)
        } else {
            try store.write { try $0.attachIdempotencyResource(resourceID, key: claim.key, scope: claim.scope) }
        }
    }

    /// Forgets keys first used `lifetime` or longer before `now`; returns how many.
    @discardableResult
    package func purgeExpired(at now: Date) throws -> Int {
        try store.write { transaction in
            try transaction.purgeIdempotencyRecords(createdAtOrBefore: now.addingTimeInterval(-lifetime))
        }
    }

    // MARK: - Internals

    private enum Lookup {
        case absent
        case replay(IdempotentResponse)
        /// A run holds the claim, or held it until it crashed.
        case inProgress(since: Date)
        /// The claim's run gave it up after starting the work: the next request resumes it.
        case resumable(IdempotencyRecord)
    }

    /// The claim in `record` (left by a crashed run, or given up by a failed one), taken over:
    /// its lease restarts at `lockedAt`, and the new claim carries what the old run attached.
    private func takeOver(
        _ record: IdempotencyRecord?, key: String, scope: String, hash: String, lockedAt: Date, in transaction: any PaymentStoreTransaction
    ) throws -> IdempotencyReservation {
        try transaction.relockIdempotencyClaim(key: key, scope: scope, at: lockedAt)
        return .claimed(IdempotencyClaim(
            key: key, scope: scope, requestHash: hash, createdAt: record?.createdAt ?? lockedAt,
            recoveredResourceID: record?.resourceID, isRecovery: true, lockedAt: lockedAt))
    }

    /// What the store holds for the key, inside the caller's write transaction. An expired
    /// row is deleted and reported absent.
    private func lookUp(key: String, scope: String, hash: String, at now: Date, in transaction: any PaymentStoreTransaction) throws -> Lookup {
        guard let stored = try transaction.idempotencyRecord(key: key, scope: scope) else { return .absent }
        if now.timeIntervalSince(stored.createdAt) >= lifetime {
            try transaction.deleteIdempotencyRecord(key: key, scope: scope, onlyInProgress: false)
            return .absent
        }
        guard stored.requestHash == hash else {
            throw IdempotencyError(key: key, reason: .reused(firstUsedAt: stored.createdAt, scope: scope))
        }
        guard stored.state == .completed, let result = stored.result else {
            let lockedAt = stored.lockedAt ?? stored.createdAt
            if Timestamp.epochMilliseconds(lockedAt) == Timestamp.epochMilliseconds(Self.lockTimeOfResumableClaim) {
                return .resumable(stored)
            }
            return .inProgress(since: lockedAt)
        }
        let payload: IdempotentPayload?
        do {
            payload = try result.response.map { text throws(StoredFormatError) in try StoredPaymentResult.decode(text) }
        } catch {
            throw IdempotencyError(key: key, reason: .unreadableResult(error.detail))
        }
        let replayed: IdempotentResult = result.succeeded
            ? .succeeded(payload ?? .version0(.null))
            : .failed(code: result.errorCode ?? "unknown_error", message: result.errorMessage ?? "", payload: payload)
        return .replay(IdempotentResponse(result: replayed, replayed: true, firstUsedAt: stored.createdAt))
    }

    /// `result` as a row keeps it: the payload in its stored format (`StoredPaymentResult`),
    /// the message redacted.
    private static func stored(_ result: IdempotentResult) -> StoredIdempotentResult {
        switch result {
        case .succeeded(let payload):
            StoredIdempotentResult(succeeded: true, response: StoredPaymentResult.encode(payload), errorCode: nil, errorMessage: nil)
        case .failed(let code, let message, let payload):
            StoredIdempotentResult(
                succeeded: false, response: payload.map(StoredPaymentResult.encode), errorCode: code,
                errorMessage: SensitiveDigits.redacted(message))
        }
    }

    /// SHA-256 of the parameters' compact JSON: equal parameters, built the same way, give
    /// the same hash.
    package static func requestHash(_ parameters: JSONValue) -> String {
        SHA256.hash(JSONWriter.string(parameters)).hexString
    }

    /// Refuses what cannot be a key: empty, longer than 255 characters (Unicode scalars, as
    /// the databases count them), or holding a control character (C0, DEL, C1). Anything else
    /// printable is a key, whatever its digits: a UUID, a nanosecond timestamp, even a card
    /// number, which is never stored as it is (`storedKey(_:)`).
    package static func validate(_ key: String) throws(IdempotencyError) {
        let problem: String? =
            if key.isEmpty { "is empty" }
            else if key.unicodeScalars.count > maximumKeyLength { "is longer than \(maximumKeyLength) characters" }
            else if key.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) { "contains a control character" }
            else { nil }
        if let problem { throw IdempotencyError(key: key, reason: .invalidKey(problem)) }
    }

    /// What the stores keep for `key`: the key itself, or, when it holds what can be a card
    /// number (`SensitiveDigits`) or could be mistaken for such a digest, `sha256:` and the
    /// SHA-256 of its UTF-8 bytes in hex. Lookups go through the same function, so a key is
    /// found whatever form it has; keys stored before this rule held no card number (the old
    /// rule refused every run of 12 digits), so they already have the form this gives them.
    package static func storedKey(_ key: String) -> String {
        guard SensitiveDigits.containsCardNumber(key) || key.hasPrefix(digestPrefix) else { return key }
        return digestPrefix + SHA256.hash(key).hexString
    }

    /// The prefix of a key stored as its digest.
    static let digestPrefix = "sha256:"
}
