import Foundation
import MockProcessor
import PayPanel
import PayPanelHTTP

/// The state behind `paypanel processor serve`: the mock's ledger (money, durable, shared with
/// the in-process mock) and, per test key, an `Account` (intents, refunds, idempotency keys,
/// scripted chains, test clock).
///
/// Why an actor: every request reads and changes one account's maps; the actor serialises them.
/// It runs on the `MockProcessor`'s executor, so its ledger calls run in place (`onMock`), with
/// no suspension between the account's change and the ledger's. Before a ledger call the intent
/// is still marked `processing` and written (a write-ahead): a crash between the two commits
/// leaves it so, and the next start settles it from the ledger. The ledger's lookups and the
/// flush waits do suspend; a second confirm or capture arriving then sees `processing` and is
/// refused, instead of interleaving with the first.
///
/// What survives a restart: the ledger (SQLite) with the accounts in it (`AccountStore`, one
/// row per object; each request writes only the objects it changed). Ids made with an
/// Idempotency-Key are derived from it, so even a retry whose first answer was never written
/// recreates the same intent id and attempt reference, and the ledger replays the
/// authorization it already made.
///
/// Which accounts are in memory, and which is written out to make room, is `ResidentAccounts`'
/// job; the service admits an account (settling what a crash left `processing`) and answers
/// the requests.
actor ProcessorService {
    /// The mock processor's thread (`ActorThread`), never the cooperative pool: the account
    /// store writes through the ledger's connection there (`AccountStore`), and every ledger
    /// call runs on the same thread, in place (`onMock`). (The Swift runtime still queues a
    /// request's task on it again at each call to an `async` function of this actor; measured,
    /// that costs nothing visible: docs/benchmarks.md, "The repeated queueing, measured away".)
    nonisolated var unownedExecutor: UnownedSerialExecutor { mock.unownedExecutor }
    let mock: MockProcessor
    let clock: any WallClock

    /// Runs `body` on the mock at once, without leaving this actor, with the time on `tag`'s
    /// test clock (every ledger call is made at it): the two share one executor
    /// (`unownedExecutor`), so a synchronous ledger call needs no hop. (`await mock.…` would
    /// queue the request's task on the thread again on the way in and again on the way out,
    /// behind whatever else waits there: docs/benchmarks.md, "What one call still costs".)
    /// `assumeIsolated` checks that the executor is the mock's and stops the process otherwise.
    func onMock<T: Sendable>(at tag: String, _ body: @Sendable (isolated MockProcessor, Date) throws -> T) rethrows -> T {
        let now = now(tag)
        return try mock.assumeIsolated { mock in try body(mock, now) }
    }

    /// The accounts in memory, changed in place (`update`).
    private(set) var residents: ResidentAccounts
    /// Nil for an in-memory ledger: its accounts live as long as the process.
    var store: AccountStore? { residents.store }
    /// Refunds whose ledger call is running now: a pending refund the ledger does not know yet is
    /// not "never made" while its call is still on its way (see `refreshed`).
    var refundsInFlight: Set<String> = []
    /// `http://host:port`, for `next_action` URLs; set once the port is known.
    private(set) var baseURL = "http://127.0.0.1"

    /// Objects per account at most (intents, refunds, charges, customers, payment methods), so
    /// no client can exhaust memory.
    static let maximumObjectsPerAccount = 100_000
    /// Stripe keeps idempotency keys for 24 hours.
    static let idempotencyKeyLifetime: TimeInterval = 24 * 3600

    /// Seals the webhook endpoints' secrets in the ledger file (key: `<ledger>.webhook-key`).
    let webhookBox: WebhookSecretBox
    /// The webhook sender's finished passes (`ProcessorServer` runs the sender and counts them
    /// here; `GET /_mock/webhook_deliveries` shows the count as `sender_passes`).
    let webhookSenderPasses = WorkerPasses()
    /// The accounts' webhook endpoints and delivery log, in the ledger file: their routes call
    /// it directly, since it reads no account object.
    let webhookEndpoints: MockWebhookEndpoints

    /// Opens the account tables in `mock`'s ledger (none for `:memory:`).
    init(
        mock: MockProcessor, clock: any WallClock, webhookBox: WebhookSecretBox, accountStoreWrites: AccountStoreWrites? = nil,
        residentAccounts: Int = 1000
    ) throws {
        self.mock = mock
        self.clock = clock
        self.residents = ResidentAccounts(
            limit: residentAccounts, store: AccountStore.open(in: mock, writes: accountStoreWrites))
        self.webhookBox = webhookBox
        webhookEndpoints = MockWebhookEndpoints(mock: mock, box: webhookBox, senderPasses: webhookSenderPasses)
    }

    /// Moves an earlier version's account files into the store, loads the accounts, then
    /// settles intents a crash left `processing` from the ledger. Returns what could not be read.
    func restore() async -> [String] {
        guard let store else { return [] }
        var unreadable = LegacyAccountFiles.importAll(ledgerPath: mock.ledgerPath, into: store)
        do {
            let (loaded, unreadableRows) = try store.loadAll()
            unreadable += unreadableRows
            // The rest stay in the store until their keys come back (`admit`).
            for account in loaded.prefix(residents.limit) { residents.admit(account) }
        } catch {
            unreadable.append("\(store.path) (\((error as? any PayPanelError)?.message ?? "\(error)"))")
        }
        // Listed first, settled after: settling awaits the ledger and changes the accounts.
        var processing: [(tag: String, id: String, reference: String)] = []
        for (tag, account) in residents.accounts {
            for id in account.intents.order.newestFirst.reversed() {
                guard let intent = account.intents[id], intent.status == "processing" else { continue }
                processing.append((tag, id, intent.ledgerReference(accountPrefix: account.ledgerPrefix)))
            }
        }
        for (tag, id, reference) in processing {
            await settleAfterCrash(tag, intentID: id, reference: reference)
            await persistSharingFlush(tag)
        }
        return unreadable
    }

    /// Writes what changed in the account since its last write, in one transaction: the rows
    /// of the objects this request touched, however many the account holds. Best effort: a
    /// full disk must not fail a payment answer (the ledger, which holds the money, is written
    /// by SQLite with its own guarantees); the changes stay marked, so the account's next write
    /// carries them.
    ///
    /// Waits for the commit's flush holding the service's thread: for the seeder, which writes
    /// every account once at the end (see `answer` for requests; eviction waits the
    /// same way inside `ResidentAccounts.evictOne`).
    func persist(_ tag: String) {
        try? residents.save(tag)?.waitBlocking()
    }

    /// `persist`, for work outside a request's answer (settling after a crash, refreshing a
    /// pending refund): the wait for the flush suspends the service instead of holding its
    /// thread, so the requests of other accounts commit into the same flush meanwhile. A failed
    /// flush is left to the answers that wait for it (`flushFailure`).
    func persistSharingFlush(_ tag: String) async {
        _ = residents.save(tag)
        _ = await flushFailure()
    }

    /// A request's whole stay on the service's thread, in one call from the handler: the account
    /// of `key` is found and kept in memory (`acquire`), the route answers (`answer(_:persisting:_:)`),
    /// and the account is released. (Finding, answering and releasing were three calls.)
    func answer(key: String, persisting: Bool, _ route: nonisolated(nonsending) @Sendable (String) async -> Reply) async throws(StripeError) -> Reply {
        let tag = try await acquire(key: key)
        defer { release(tag) }
        return await answer(tag, persisting: persisting) { await route(tag) }
    }

    /// What a request with an Idempotency-Key gets from its one call.
    enum IdempotentAnswer: Sendable {
        case reply(Reply)
        /// The route held its answer (a lost answer): the key stays in flight and the account in
        /// use until the server, done holding the connection, calls `finishHeld`.
        case held(tag: String)
        /// The answer the key already has.
        case replay(StoredResponse)
        /// The key was used with other parameters.
        case mismatch
        /// Another request with the key is running.
        case inFlight
    }

    /// `answer(key:persisting:_:)` for a request with an Idempotency-Key: the key is claimed
    /// (`beginIdempotent`) in the same call, and the route runs only when it may.
    func answer(
        key: String, idempotencyKey: String, fingerprint: String, _ route: nonisolated(nonsending) @Sendable (String) async -> Reply
    ) async throws(StripeError) -> IdempotentAnswer {
        let tag = try await acquire(key: key)
        if let early = beginIdempotent(tag, key: idempotencyKey, fingerprint: fingerprint) {
            release(tag)
            return early
        }
        let reply = await answer(tag, idempotencyKey: idempotencyKey) { await route(tag) }
        if case .hold = reply { return .held(tag: tag) }
        release(tag)
        return .reply(reply)
    }

    /// After a held request's connection was dropped: its key is released, then its account.
    func finishHeld(_ tag: String, idempotencyKey: String) {
        finishIdempotent(tag, key: idempotencyKey, response: nil)
        release(tag)
    }

    /// Runs a request's `route` on the service's thread, then (`persisting`) writes what it
    /// changed in `tag`'s account, and answers once all of it is durable (`flushFailure`): the
    /// route's calls into the service run there with it, not a call from the handler each.
    private func answer(_ tag: String, persisting: Bool, _ route: nonisolated(nonsending) @Sendable () async -> Reply) async -> Reply {
        let reply = await route()
        if persisting { _ = residents.save(tag) }
        guard let failure = await flushFailure() else { return reply }
        return Self.notDurable(reply, failure)
    }

    /// `answer` for a request with an Idempotency-Key that `beginIdempotent` let proceed: the
    /// key keeps the reply for replay (successes and card declines) or is released (faults,
    /// 400s) before the write, in the same call. A held reply (no answer) keeps the key in flight
    /// while it is held; its caller releases it after. A reply that could not be made durable
    /// releases the key again, so that a retry reaches the ledger instead of a replay.
    private func answer(_ tag: String, idempotencyKey key: String, _ route: nonisolated(nonsending) @Sendable () async -> Reply) async -> Reply {
        let reply = await route()
        if case .hold = reply {
            await persistSharingFlush(tag)
            return reply
        }
        if reply.isReplayable, case .respond(let status, let json, _, _) = reply {
            finishIdempotent(tag, key: key, response: StoredResponse(status: status.code, body: Array(JSONWriter.string(json).utf8)))
        } else {
            finishIdempotent(tag, key: key, response: nil)
        }
        _ = residents.save(tag)
        guard let failure = await flushFailure() else { return reply }
        if reply.isReplayable { finishIdempotent(tag, key: key, response: nil) }
        return Self.notDurable(reply, failure)
    }

    /// Waits until every commit to the ledger file so far is durable: the request's ledger
    /// calls (which return committed, not flushed: `MockProcessor.authorizeOverWire`), its
    /// account's write, and whatever other requests committed before, which its answer may
    /// show. So nothing a client is told can be taken back by a power loss, and a request waits
    /// for one flush, shared with the requests served meanwhile. Nil once durable; the failure
    /// when the flush failed.
    private func flushFailure() async -> DatabaseError? {
        do throws(DatabaseError) {
            try await store?.flushOfEverythingCommitted.wait()
            return nil
        } catch {
            return error
        }
    }

    /// What to answer instead of `reply` when its flush failed: a reply that reports what
    /// happened (a success or a card's decline) becomes a 500, since whether it survives a
    /// restart is unknown; a refusal, which reports no change, stays as it is.
    private static func notDurable(_ reply: Reply, _ failure: DatabaseError) -> Reply {
        guard reply.isReplayable else { return reply }
        return .error(.apiError(
            "processor serve could not make its ledger file durable (\(failure.message)), so whether this request's change survives a restart is unknown: restart processor serve, then look the object up."))
    }

    /// Writes what changed in the account ahead of a ledger call, without waiting for the
    /// write's flush. The write-ahead must be on disk whenever the ledger's entry is (a crash in
    /// between then leaves the intent `processing`, and the next start settles it from the
    /// ledger), and that holds without a wait of its own: the ledger's commit goes to the same
    /// file after this one, into the same WAL, so no flush can make the ledger's entry durable
    /// without this write. The request's answer waits for both (`flushFailure`).
    func writeAhead(_ tag: String) {
        _ = residents.save(tag)
    }

    /// While set (`ProcessorServer.seedAccounts`), requests do not write their accounts.
    func setPersistenceDeferred(_ deferred: Bool) {
        residents.persistenceDeferred = deferred
    }

    func setBaseURL(_ url: String) {
        baseURL = url
    }

    // MARK: - Accounts and time

    /// The account of `key` (created on first use, or read back from the store), marked in
    /// use until `release`: it stays in memory while a request runs.
    private func acquire(key: String) async throws(StripeError) -> String {
        let tag = Account.tag(forKey: key)
        if !residents.isResident(tag) { try await admit(tag) }
        residents.markInUse(tag)
        return tag
    }

    private func release(_ tag: String) {
        residents.release(tag)
    }

    /// The account of `key` for work outside a request (seeding).
    func accountTag(forKey key: String) async throws(StripeError) -> String {
        let tag = try await acquire(key: key)
        release(tag)
        return tag
    }

    /// How many accounts are in memory now (tests: the bound holds).
    var residentCount: Int { residents.count }

    /// Brings `tag` into memory: from the store when it was there (settling intents a crash
    /// left `processing`, as at start), else new; first making room.
    private func admit(_ tag: String) async throws(StripeError) {
        if residents.isFull { try residents.evictOne() }
        var loaded: Account?
        if let store {
            do {
                loaded = try store.load(tag)
            } catch {
                throw StripeError.apiError("The account store cannot be read: \((error as? any PayPanelError)?.message ?? "unexpected failure").")
            }
        }
        // Set before any await: a second request for the same key finds it here.
        residents.admit(loaded ?? Account(tag: tag))
        guard let loaded else { return }
        let processing = loaded.intents.order.newestFirst.filter { loaded.intents[$0]?.status == "processing" }
        for id in processing.reversed() {
            guard let reference = loaded.intents[id]?.ledgerReference(accountPrefix: loaded.ledgerPrefix) else { continue }
            await settleAfterCrash(tag, intentID: id, reference: reference)
        }
        if !processing.isEmpty { await persistSharingFlush(tag) }
    }

    /// Forgets `tag` in memory (a reset): its slot is free at once.
    func forget(_ tag: String) {
        residents.forget(tag)
    }

    /// Forgets every account in memory, and the clocks of evicted ones (a reset of all).
    func forgetAll() {
        residents.forgetAll()
    }

    /// The account's test clock: the server's clock plus the account's advance (an evicted
    /// account's too: the webhook sender reads it while the account is out of memory).
    func now(_ tag: String) -> Date {
        clock.now().addingTimeInterval(residents.clockOffset(tag))
    }

    func account(_ tag: String) -> Account {
        residents.account(tag)
    }

    /// Changes the account in place (no copy: see `ResidentAccounts`).
    func update(_ tag: String, _ body: (inout Account) -> Void) {
        residents.update(tag, body)
    }

    func checkRoom(_ tag: String) throws(StripeError) {
        guard residents.objectCount(tag) < Self.maximumObjectsPerAccount else {
            throw StripeError(
                status: .tooManyRequests, type: "invalid_request_error", code: "object_limit",
                message: "This test key's account holds \(Self.maximumObjectsPerAccount) objects: reset it (POST /_mock/reset) between tests.")
        }
    }

    // MARK: - Idempotency keys (Stripe's semantics)

    /// Claims `key` for a request with `fingerprint` (nil: the request proceeds), or answers
    /// instead of it.
    private func beginIdempotent(_ tag: String, key: String, fingerprint: String) -> IdempotentAnswer? {
        let now = now(tag)
        if let record = residents.accounts[tag]?.idempotency[key], now.timeIntervalSince(record.createdAt) < Self.idempotencyKeyLifetime {
            guard record.fingerprint == fingerprint else { return .mismatch }
            guard let response = record.response else { return .inFlight }
            return .replay(response)
        }
        update(tag) { $0.idempotency[key] = IdempotencyRecord(fingerprint: fingerprint, createdAt: now) }
        return nil
    }

    /// Stores the answer for replay, or releases the key when the answer was a fault.
    func finishIdempotent(_ tag: String, key: String, response: StoredResponse?) {
        update(tag) { account in
            guard let response else {
                account.idempotency[key] = nil
                return
            }
            account.idempotency[key]?.response = response
        }
    }

    /// A new object id: derived from the account and idempotency key when there is one (so a
    /// retry after a restart gets the same id), random otherwise.
    static func objectID(prefix: String, tag: String, idempotencyKey: String?) -> String {
        guard let idempotencyKey else {
            var random = BatchedRandomNumberGenerator()
            return prefix + "_" + Base62.random(length: 24, using: &random)
        }
        return prefix + "_" + Base62.derived(from: "\(prefix)\u{0}\(tag)\u{0}\(idempotencyKey)", length: 24)
    }
}
