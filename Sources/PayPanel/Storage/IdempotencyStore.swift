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
    public let database: Database
    /// How long a key is remembered (24 h).
    public let lifetime: TimeInterval
    /// A claim older than this is taken to belong to a crashed process and may be reclaimed;
    /// the reclaiming run sees the crashed run's `resourceID` and must resume, not restart.
    public let inProgressLease: TimeInterval

    /// A store on `database` (the payments database, so keys commit with what they protect).
    public init(database: Database, lifetime: TimeInterval = 24 * 3600, inProgressLease: TimeInterval = 5 * 60) {
        self.database = database
        self.lifetime = lifetime
        self.inProgressLease = inProgressLease
    }

    /// The longest key accepted (Stripe's limit).
    public static let maximumKeyLength = 255

    // MARK: - One transaction

    /// Runs `body` once per `(key, scope)`: checks the key, runs the body and stores its result
    /// in ONE write transaction (the body's own `database.write` calls join it). Without a key
    /// the body simply runs.
    public func perform(
        key: String?, scope: String, parameters: JSONValue, at now: Date, _ body: () throws -> IdempotentResult
    ) throws -> IdempotentResponse {
        guard let key else { return IdempotentResponse(result: try body(), replayed: false, firstUsedAt: now) }
        try IdempotencyStore.validate(key)
        let hash = IdempotencyStore.requestHash(parameters)
        return try database.write {
            switch try lookUp(key: key, scope: scope, hash: hash, at: now) {
            case .replay(let response): return response
            case .inProgress(let since): throw IdempotencyError(key: key, reason: .inProgress(since: since))
            case .absent: break
            }
            let result = try body()
            try store(result, key: key, scope: scope, hash: hash, createdAt: now, at: now, insert: true)
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
        return try database.write {
            switch try lookUp(key: key, scope: scope, hash: hash, at: now) {
            case .replay(let response):
                return .replay(response)
            case .inProgress(let since):
                // A claim past its lease belongs to a process that died: take it over.
                guard now.timeIntervalSince(since) >= inProgressLease else {
                    throw IdempotencyError(key: key, reason: .inProgress(since: since))
                }
                let row = try database.queryFirst(
                    "SELECT resource_id, created_at FROM idempotency_keys WHERE key = ? AND scope = ?", [key, scope]
                ) { ($0.optionalString(0), PaymentRows.date($0.int64(1))) }
                try database.execute("UPDATE idempotency_keys SET locked_at = ? WHERE key = ? AND scope = ?", [now, key, scope])
                return .claimed(IdempotencyClaim(
                    key: key, scope: scope, requestHash: hash, createdAt: row?.1 ?? now, recoveredResourceID: row?.0, isRecovery: true))
            case .absent:
                try database.execute(
                    """
                    INSERT INTO idempotency_keys (key, scope, request_hash, status, created_at, locked_at)
                    VALUES (?, ?, ?, 'in_progress', ?, ?)
                    """, [key, scope, hash, now, now])
                return .claimed(IdempotencyClaim(key: key, scope: scope, requestHash: hash, createdAt: now, recoveredResourceID: nil, isRecovery: false))
            }
        }
    }

    /// Stores the claim's result; later requests with the key replay it.
    public func complete(_ claim: IdempotencyClaim, with result: IdempotentResult, at now: Date) throws {
        try database.write {
            try store(result, key: claim.key, scope: claim.scope, hash: claim.requestHash, createdAt: claim.createdAt, at: now, insert: false)
        }
    }

    /// Gives the key up without a result (the operation did not run): it may be used again.
    public func release(_ claim: IdempotencyClaim) throws {
        try database.write {
            try database.execute(
                "DELETE FROM idempotency_keys WHERE key = ? AND scope = ? AND status = 'in_progress'", [claim.key, claim.scope])
        }
    }

    /// Records what the claimed operation created (e.g. the attempt id) as its recovery
    /// point, so a run that reclaims the key after a crash resumes it instead of starting over.
    public func attach(resourceID: String, to claim: IdempotencyClaim) throws {
        try database.write {
            try database.execute(
                "UPDATE idempotency_keys SET resource_id = ? WHERE key = ? AND scope = ? AND status = 'in_progress'",
                [resourceID, claim.key, claim.scope])
        }
    }

    /// Forgets keys first used `lifetime` or longer before `now`; returns how many.
    @discardableResult
    public func purgeExpired(at now: Date) throws -> Int {
        try database.write {
            try database.execute("DELETE FROM idempotency_keys WHERE created_at <= ?", [now.addingTimeInterval(-lifetime)])
            return database.changes
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
    private func lookUp(key: String, scope: String, hash: String, at now: Date) throws -> Lookup {
        typealias Stored = (hash: String, status: String, outcome: String?, response: String?, errorCode: String?, errorMessage: String?, createdAt: Date, lockedAt: Date?)
        let stored = try database.queryFirst(
            """
            SELECT request_hash, status, outcome, response, error_code, error_message, created_at, locked_at
            FROM idempotency_keys WHERE key = ? AND scope = ?
            """, [key, scope]
        ) { row -> Stored in
            (row.string(0), row.string(1), row.optionalString(2), row.optionalString(3), row.optionalString(4),
             row.optionalString(5), PaymentRows.date(row.int64(6)), row.optionalInt64(7).map(PaymentRows.date))
        }
        guard let stored else { return .absent }
        if now.timeIntervalSince(stored.createdAt) >= lifetime {
            try database.execute("DELETE FROM idempotency_keys WHERE key = ? AND scope = ?", [key, scope])
            return .absent
        }
        guard stored.hash == hash else {
            throw IdempotencyError(key: key, reason: .reused(firstUsedAt: stored.createdAt, scope: scope))
        }
        if stored.status == "in_progress" { return .inProgress(since: stored.lockedAt ?? stored.createdAt) }
        let body = try stored.response.map { text in
            do {
                return try JSONParser().parse(text)
            } catch {
                throw IdempotencyError(key: key, reason: .unreadableResult)
            }
        }
        let result: IdempotentResult = stored.outcome == "succeeded"
            ? .succeeded(body ?? .null)
            : .failed(code: stored.errorCode ?? "unknown_error", message: stored.errorMessage ?? "", body: body)
        return .replay(IdempotentResponse(result: result, replayed: true, firstUsedAt: stored.createdAt))
    }

    private func store(_ result: IdempotentResult, key: String, scope: String, hash: String, createdAt: Date, at now: Date, insert: Bool) throws {
        let outcome: String
        let body: JSONValue?
        var errorCode: String?
        var errorMessage: String?
        switch result {
        case .succeeded(let value):
            outcome = "succeeded"
            body = value
        case .failed(let code, let message, let value):
            outcome = "failed"
            body = value
            errorCode = code
            errorMessage = SensitiveDigits.redacted(message)
        }
        let response = body.map { JSONWriter.string($0) }
        if insert {
            try database.execute(
                """
                INSERT INTO idempotency_keys (key, scope, request_hash, status, outcome, response, error_code, error_message, created_at, completed_at)
                VALUES (?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?)
                """, [key, scope, hash, outcome, response, errorCode, errorMessage, createdAt, now])
        } else {
            try database.execute(
                """
                UPDATE idempotency_keys SET status = 'completed', outcome = ?, response = ?, error_code = ?, error_message = ?,
                    locked_at = NULL, completed_at = ?
                WHERE key = ? AND scope = ? AND request_hash = ?
                """, [outcome, response, errorCode, errorMessage, now, key, scope, hash])
        }
    }

    /// SHA-256 of the parameters' compact JSON: equal parameters, built the same way, give
    /// the same hash.
    public static func requestHash(_ parameters: JSONValue) -> String {
        SHA256.hash(JSONWriter.string(parameters)).hexString
    }

    /// Refuses empty, over-long, non-printable keys, and keys that look like a card number.
    public static func validate(_ key: String) throws(IdempotencyError) {
        let problem: String? =
            if key.isEmpty { "is empty" }
            else if key.utf8.count > maximumKeyLength { "is longer than \(maximumKeyLength) bytes" }
            else if key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { "contains a control character" }
            else if SensitiveDigits.containsLongDigitRun(key) { "holds \(SensitiveDigits.minimumRun) or more digits in a row, which could be a card number" }
            else { nil }
        if let problem { throw IdempotencyError(key: key, reason: .invalidKey(problem)) }
    }
}
