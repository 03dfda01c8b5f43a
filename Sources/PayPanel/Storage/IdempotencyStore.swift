import Foundation

/// Idempotency keys with Stripe's semantics, per `(key, scope)`:
/// - the first result is stored and replayed, failures (declines) included;
/// - the same key with different parameters is refused (`idempotency_key_reused`);
/// - a duplicate that arrives while the first is still running is refused
///   (`idempotency_in_progress`);
/// - keys expire `lifetime` (24 h) after first use, by the injected clock.
///
/// A result is stored only once the operation ran: when the body throws (bad input, a database
/// error), nothing is stored and the key can be used again.
///
/// Two ways in. `perform` runs a body that is one database transaction (creating an intent)
/// inside the same write as the key check: concurrent duplicates simply queue on the write
/// lock and replay the winner's result, so they never see "in progress". `run` (or `reserve`
/// / `complete` / `release`) is for operations that call the processor between transactions:
/// the claim is committed first, so a concurrent duplicate sees it and is refused.
public final class IdempotencyStore {
    /// The payments store, so keys commit with what they protect.
    public let store: any PaymentStore
    /// How long a key is remembered (24 h).
    public let lifetime: TimeInterval
    /// A claim older than this is taken to belong to a crashed process and may be reclaimed;
    /// the reclaiming run sees the crashed run's `resourceID` and must resume, not restart.
    public let inProgressLease: TimeInterval

    /// Keys kept in `store`.
    public init(store: any PaymentStore, lifetime: TimeInterval = 24 * 3600, inProgressLease: TimeInterval = 5 * 60) {
        self.store = store
        self.lifetime = lifetime
        self.inProgressLease = inProgressLease
    }

    /// The longest key accepted (Stripe's limit).
    public static let maximumKeyLength = 255

    // MARK: - One transaction

    /// Runs `body` once per `(key, scope)`: checks the key, runs the body and stores its result
    /// in ONE write transaction, the one `body` is handed. Without a key the body simply runs
    /// (in a transaction of its own).
    public func perform(
        key: String?, scope: String, parameters: JSONValue, at now: Date,
        _ body: (any PaymentStoreTransaction) throws -> IdempotentResult
    ) throws -> IdempotentResponse {
        guard let key else {
            return IdempotentResponse(result: try store.write(body), replayed: false, firstUsedAt: now)
        }
        try IdempotencyStore.validate(key)
        let hash = IdempotencyStore.requestHash(parameters)
        return try store.write { transaction in
            switch try lookUp(key: key, scope: scope, hash: hash, at: now, in: transaction) {
            case .replay(let response): return response
            case .inProgress(let since): throw IdempotencyError(key: key, reason: .inProgress(since: since))
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
    /// so duplicates see it), runs the body, stores its result; releases the claim when the
    /// body throws. Runs on the caller's actor (`CheckoutService`), so the store never leaves it.
    public func run(
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
            try? release(claim)
            throw error
        }
        try complete(claim, with: result, at: clock.now())
        return IdempotentResponse(result: result, replayed: false, firstUsedAt: claim.createdAt)
    }

    /// Claims `(key, scope)`, or returns the stored result to replay. Throws
    /// `idempotency_key_reused` or `idempotency_in_progress`.
    public func reserve(key: String, scope: String, parameters: JSONValue, at now: Date) throws -> IdempotencyReservation {
        try IdempotencyStore.validate(key)
        let hash = IdempotencyStore.requestHash(parameters)
        return try store.write { transaction in
            switch try lookUp(key: key, scope: scope, hash: hash, at: now, in: transaction) {
            case .replay(let response):
                return .replay(response)
            case .inProgress(let since):
                // A claim past its lease belongs to a process that died: take it over.
                guard now.timeIntervalSince(since) >= inProgressLease else {
                    throw IdempotencyError(key: key, reason: .inProgress(since: since))
                }
                let record = try transaction.idempotencyRecord(key: key, scope: scope)
                try transaction.relockIdempotencyClaim(key: key, scope: scope, at: now)
                return .claimed(IdempotencyClaim(
                    key: key, scope: scope, requestHash: hash, createdAt: record?.createdAt ?? now,
                    recoveredResourceID: record?.resourceID, isRecovery: true))
            case .absent:
                try transaction.insertIdempotencyRecord(IdempotencyRecord(
                    key: key, scope: scope, requestHash: hash, state: .inProgress, result: nil, createdAt: now, lockedAt: now,
                    resourceID: nil))
                return .claimed(IdempotencyClaim(key: key, scope: scope, requestHash: hash, createdAt: now, recoveredResourceID: nil, isRecovery: false))
            }
        }
    }

    /// Stores the claim's result; later requests with the key replay it.
    public func complete(_ claim: IdempotencyClaim, with result: IdempotentResult, at now: Date) throws {
        try store.write { transaction in
            try transaction.completeIdempotencyClaim(
                key: claim.key, scope: claim.scope, requestHash: claim.requestHash, result: Self.stored(result), at: now)
        }
    }

    /// Gives the key up without a result (the operation did not run): it may be used again.
    public func release(_ claim: IdempotencyClaim) throws {
        try store.write { transaction in
            try transaction.deleteIdempotencyRecord(key: claim.key, scope: claim.scope, onlyInProgress: true)
        }
    }

    /// Records what the claimed operation created (e.g. the attempt id) as its recovery
    /// point, so a run that reclaims the key after a crash resumes it instead of starting over.
    /// Pass the transaction that creates the resource, so the two commit together.
    public func attach(resourceID: String, to claim: IdempotencyClaim, in transaction: (any PaymentStoreTransaction)? = nil) throws {
        if let transaction {
            try transaction.attachIdempotencyResource(resourceID, key: claim.key, scope: claim.scope)
        } else {
            try store.write { try $0.attachIdempotencyResource(resourceID, key: claim.key, scope: claim.scope) }
        }
    }

    /// Forgets keys first used `lifetime` or longer before `now`; returns how many.
    @discardableResult
    public func purgeExpired(at now: Date) throws -> Int {
        try store.write { transaction in
            try transaction.purgeIdempotencyRecords(createdAtOrBefore: now.addingTimeInterval(-lifetime))
        }
    }

    // MARK: - Internals

    private enum Lookup {
        case absent
        case replay(IdempotentResponse)
        case inProgress(since: Date)
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
            return .inProgress(since: stored.lockedAt ?? stored.createdAt)
        }
        let body = try result.response.map { text in
            do {
                return try JSONParser().parse(text)
            } catch {
                throw IdempotencyError(key: key, reason: .unreadableResult)
            }
        }
        let replayed: IdempotentResult = result.succeeded
            ? .succeeded(body ?? .null)
            : .failed(code: result.errorCode ?? "unknown_error", message: result.errorMessage ?? "", body: body)
        return .replay(IdempotentResponse(result: replayed, replayed: true, firstUsedAt: stored.createdAt))
    }

    /// `result` as a row keeps it: the body as JSON text, the message redacted.
    private static func stored(_ result: IdempotentResult) -> StoredIdempotentResult {
        switch result {
        case .succeeded(let value):
            StoredIdempotentResult(succeeded: true, response: JSONWriter.string(value), errorCode: nil, errorMessage: nil)
        case .failed(let code, let message, let value):
            StoredIdempotentResult(
                succeeded: false, response: value.map { JSONWriter.string($0) }, errorCode: code,
                errorMessage: SensitiveDigits.redacted(message))
        }
    }

    /// SHA-256 of the parameters' compact JSON: equal parameters, built the same way, give
    /// the same hash.
    public static func requestHash(_ parameters: JSONValue) -> String {
        SHA256.hash(JSONWriter.string(parameters)).hexString
    }

    /// Refuses what cannot be a key: empty, longer than 255 characters (Unicode scalars, as
    /// the databases count them), or holding a control character (C0, DEL, C1). Anything else
    /// printable is a key, whatever its digits: a UUID, a nanosecond timestamp, even a card
    /// number, which is never stored as it is (`storedKey(_:)`).
    public static func validate(_ key: String) throws(IdempotencyError) {
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
    public static func storedKey(_ key: String) -> String {
        guard SensitiveDigits.containsCardNumber(key) || key.hasPrefix(digestPrefix) else { return key }
        return digestPrefix + SHA256.hash(key).hexString
    }

    /// The prefix of a key stored as its digest.
    static let digestPrefix = "sha256:"
}
