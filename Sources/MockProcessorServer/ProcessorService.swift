import Foundation
import MockProcessor
import PayPanel
import PayPanelHTTP

/// The state behind `paypanel processor serve`: the mock's ledger (money, durable, shared with
/// the in-process mock) and, per test key, an `Account` (intents, refunds, idempotency keys,
/// scripted chains, test clock).
///
/// Why an actor: every request reads and changes one account's maps; the actor serialises them.
/// Ledger calls are awaited on the `MockProcessor` actor, so before each await the intent is
/// marked `processing`: a second confirm or capture arriving meanwhile sees that state and is
/// refused, instead of interleaving with the first.
///
/// What survives a restart: the ledger (SQLite) with the accounts in it (`AccountStore`, one
/// row per object; each request writes only the objects it changed). Ids made with an
/// Idempotency-Key are derived from it, so even a retry whose first answer was never written
/// recreates the same intent id and attempt reference, and the ledger replays the
/// authorization it already made.
///
/// Accounts are changed in place (`update`), never copied out and back: a copy would share the
/// account's tables, and the first change would then duplicate them whole (copy-on-write), a
/// cost that grows with the account.
actor ProcessorService {
    /// Its own thread: the synchronous store calls below block it, never the cooperative pool
    /// (`ActorThread`).
    private let thread = ActorThread(name: "processor-service")
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    let mock: MockProcessor
    let clock: any WallClock
    /// Nil for an in-memory ledger: its accounts live as long as the process.
    let store: AccountStore?
    var accounts: [String: Account] = [:]
    /// Refunds whose ledger call is running now: a pending refund the ledger does not know yet is
    /// not "never made" while its call is still on its way (see `refreshed`).
    var refundsInFlight: Set<String> = []
    /// Set while `ProcessorServer.seedAccounts` fills accounts in process: each request's own
    /// write is skipped and the seeder writes every account once at the end.
    var persistenceDeferred = false
    /// `http://host:port`, for `next_action` URLs; set once the port is known.
    private(set) var baseURL = "http://127.0.0.1"

    /// Accounts kept in memory at most. A suite that makes a key per test never hits a wall:
    /// beyond this, the least recently used account with no request in flight is written and
    /// dropped from memory, and read back from the store when its key returns (an in-memory
    /// ledger has no store, so there the limit is a 429).
    let residentAccounts: Int
    /// When each resident account was last used (a counter, not a clock: only the order matters).
    private var lastUse: [String: UInt64] = [:]
    private var uses: UInt64 = 0
    /// Requests running now, per account: such an account is never evicted.
    private var requestsInFlight: [String: Int] = [:]
    /// The test clocks of evicted accounts, for the webhook sender (due times are on them).
    private var parkedClockOffsets: [String: TimeInterval] = [:]
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

    /// Opens the account tables in `mock`'s ledger (none for `:memory:`).
    init(
        mock: MockProcessor, clock: any WallClock, webhookBox: WebhookSecretBox, accountStoreWrites: AccountStoreWrites? = nil,
        residentAccounts: Int = 1000
    ) throws {
        self.residentAccounts = max(1, residentAccounts)
        self.mock = mock
        self.clock = clock
        self.store = try AccountStore.open(ledgerPath: mock.ledgerPath, writes: accountStoreWrites)
        self.webhookBox = webhookBox
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
            for account in loaded.prefix(residentAccounts) { accounts[account.tag] = account }
        } catch {
            unreadable.append("\(store.path) (\((error as? any PayPanelError)?.message ?? "\(error)"))")
        }
        // Listed first, settled after: settling awaits the ledger and changes the accounts.
        var processing: [(tag: String, id: String, reference: String)] = []
        for (tag, account) in accounts {
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
    /// Waits for the commit's flush holding the service's thread: for eviction, which decides
    /// on what it wrote in the same step (see `persistSharingFlush` for requests).
    func persist(_ tag: String) {
        try? save(tag)?.waitBlocking()
    }

    /// `persist`, for a request: the wait for the commit's flush suspends the service instead of
    /// holding its thread, so the requests of other accounts commit into the same flush
    /// meanwhile. It returns once the write is durable, so an answer, or a ledger call the write
    /// goes ahead of, still comes after it.
    func persistSharingFlush(_ tag: String) async {
        try? await save(tag)?.wait()
    }

    /// Commits what changed in the account (nil: nothing to write, or the write failed) and
    /// marks it saved before anyone waits for the flush, so a change another request makes
    /// meanwhile stays marked.
    private func save(_ tag: String) -> PendingFlush? {
        // No copy of the account is kept across `markSaved` (see the type's comment).
        guard !persistenceDeferred, let store, let changes = accounts[tag].flatMap({ $0.hasChanges ? $0.pendingChanges() : nil }) else { return nil }
        guard let flush = try? store.save(changes) else { return nil }
        accounts[tag]?.markSaved()
        return flush
    }

    func setBaseURL(_ url: String) {
        baseURL = url
    }

    // MARK: - Accounts and time

    /// The account of `key` (created on first use, or read back from the store), marked in
    /// use until `release`: it stays in memory while a request runs.
    func acquire(key: String) async throws(StripeError) -> String {
        let tag = Account.tag(forKey: key)
        if accounts[tag] == nil { try await admit(tag) }
        uses += 1
        lastUse[tag] = uses
        requestsInFlight[tag, default: 0] += 1
        return tag
    }

    func release(_ tag: String) {
        let left = (requestsInFlight[tag] ?? 1) - 1
        requestsInFlight[tag] = left > 0 ? left : nil
    }

    /// The account of `key` for work outside a request (seeding).
    func accountTag(forKey key: String) async throws(StripeError) -> String {
        let tag = try await acquire(key: key)
        release(tag)
        return tag
    }

    /// How many accounts are in memory now (tests: the bound holds).
    var residentCount: Int { accounts.count }

    /// Brings `tag` into memory: from the store when it was there (settling intents a crash
    /// left `processing`, as at start), else new; first making room.
    private func admit(_ tag: String) async throws(StripeError) {
        if accounts.count >= residentAccounts { try evictOne() }
        var loaded: Account?
        if let store {
            do {
                loaded = try store.load(tag)
            } catch {
                throw StripeError.apiError("The account store cannot be read: \((error as? any PayPanelError)?.message ?? "unexpected failure").")
            }
        }
        // Set before any await: a second request for the same key finds it here.
        accounts[tag] = loaded ?? Account(tag: tag)
        parkedClockOffsets[tag] = nil
        guard let loaded else { return }
        let processing = loaded.intents.order.newestFirst.filter { loaded.intents[$0]?.status == "processing" }
        for id in processing.reversed() {
            guard let reference = loaded.intents[id]?.ledgerReference(accountPrefix: loaded.ledgerPrefix) else { continue }
            await settleAfterCrash(tag, intentID: id, reference: reference)
        }
        if !processing.isEmpty { await persistSharingFlush(tag) }
    }

    /// Writes and drops from memory the least recently used account with no request in flight.
    private func evictOne() throws(StripeError) {
        func full(_ reason: String) -> StripeError {
            StripeError(
                status: .tooManyRequests, type: "invalid_request_error", code: "account_limit",
                message: "This mock holds at most \(residentAccounts) test keys' accounts in memory and \(reason): retry shortly, or reset accounts (POST /_mock/reset).")
        }
        guard store != nil, !persistenceDeferred else { throw full("has nowhere to write one to make room (an in-memory ledger)") }
        let idle = accounts.keys.filter { requestsInFlight[$0] == nil }.sorted { (lastUse[$0] ?? 0) < (lastUse[$1] ?? 0) }
        for tag in idle {
            persist(tag)
            // Written, or it keeps changes the store could not take (a full disk): then it stays.
            guard let account = accounts[tag], !account.hasChanges else { continue }
            if account.clockOffset != 0 { parkedClockOffsets[tag] = account.clockOffset }
            accounts[tag] = nil
            lastUse[tag] = nil
            return
        }
        throw full("every one of them has a request in flight")
    }

    /// Forgets `tag` in memory (a reset): its slot is free at once.
    func forget(_ tag: String) {
        accounts[tag] = nil
        lastUse[tag] = nil
        parkedClockOffsets[tag] = nil
    }

    /// Forgets the clocks of evicted accounts (a reset of every account).
    func forgetParkedClocks() { parkedClockOffsets.removeAll() }

    /// The account's test clock: the server's clock plus the account's advance (an evicted
    /// account's too: the webhook sender reads it while the account is out of memory).
    func now(_ tag: String) -> Date {
        clock.now().addingTimeInterval(accounts[tag]?.clockOffset ?? parkedClockOffsets[tag] ?? 0)
    }

    func account(_ tag: String) -> Account {
        accounts[tag] ?? Account(tag: tag)
    }

    /// Changes the account in place (no copy: see the type's comment).
    func update(_ tag: String, _ body: (inout Account) -> Void) {
        body(&accounts[tag, default: Account(tag: tag)])
    }

    func checkRoom(_ tag: String) throws(StripeError) {
        let objects = accounts[tag].map { $0.intents.count + $0.refunds.count + $0.charges.count + $0.customers.count + $0.paymentMethods.count } ?? 0
        guard objects < Self.maximumObjectsPerAccount else {
            throw StripeError(
                status: .tooManyRequests, type: "invalid_request_error", code: "object_limit",
                message: "This test key's account holds \(Self.maximumObjectsPerAccount) objects: reset it (POST /_mock/reset) between tests.")
        }
    }

    // MARK: - Idempotency keys (Stripe's semantics)

    enum IdempotencyStart: Sendable {
        case proceed
        case replay(StoredResponse)
        case mismatch
        case inFlight
    }

    /// Claims `key` for a request with `fingerprint`, or says why not.
    func beginIdempotent(_ tag: String, key: String, fingerprint: String) -> IdempotencyStart {
        let now = now(tag)
        if let record = accounts[tag]?.idempotency[key], now.timeIntervalSince(record.createdAt) < Self.idempotencyKeyLifetime {
            guard record.fingerprint == fingerprint else { return .mismatch }
            guard let response = record.response else { return .inFlight }
            return .replay(response)
        }
        update(tag) { $0.idempotency[key] = IdempotencyRecord(fingerprint: fingerprint, createdAt: now) }
        return .proceed
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
            var random = SystemRandomNumberGenerator()
            return prefix + "_" + Base62.random(length: 24, using: &random)
        }
        return prefix + "_" + Base62.derived(from: "\(prefix)\u{0}\(tag)\u{0}\(idempotencyKey)", length: 24)
    }
}
