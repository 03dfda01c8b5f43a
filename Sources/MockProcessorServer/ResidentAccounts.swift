import Foundation
import PayPanel

/// The test keys' accounts that `processor serve` holds in memory, at most `limit` of them, and
/// the bookkeeping that keeps a suite making a key per test from hitting a wall: which account
/// was used last, which has a request running, and the test clocks of those written out.
///
/// Owned by `ProcessorService` and changed only on its thread. Accounts are changed in place
/// (`update`), never copied out and back: a copy would share the account's tables, and the
/// first change would then duplicate them whole (copy-on-write), a cost that grows with the
/// account.
struct ResidentAccounts {
    /// Accounts in memory at most. Beyond this, the least recently used account with no
    /// request in flight is written and dropped from memory, and read back from the store when
    /// its key returns (an in-memory ledger has no store, so there the limit is a 429).
    let limit: Int
    /// Nil for an in-memory ledger: its accounts live as long as the process.
    let store: AccountStore?
    /// Set while `ProcessorServer.seedAccounts` fills accounts in process: each request's own
    /// write is skipped and the seeder writes every account once at the end.
    var persistenceDeferred = false

    private(set) var accounts: [String: Account] = [:]
    /// When each resident account was last used (a counter, not a clock: only the order matters).
    private var lastUse: [String: UInt64] = [:]
    private var uses: UInt64 = 0
    /// Requests running now, per account: such an account is never evicted.
    private var requestsInFlight: [String: Int] = [:]
    /// The test clocks of evicted accounts, for the webhook sender (due times are on them).
    private var parkedClockOffsets: [String: TimeInterval] = [:]

    init(limit: Int, store: AccountStore?) {
        self.limit = max(1, limit)
        self.store = store
    }

    var count: Int { accounts.count }
    var isFull: Bool { accounts.count >= limit }
    func isResident(_ tag: String) -> Bool { accounts[tag] != nil }

    /// Marks `tag` in use by one more request (it stays in memory until `release`).
    mutating func markInUse(_ tag: String) {
        uses += 1
        lastUse[tag] = uses
        requestsInFlight[tag, default: 0] += 1
    }

    mutating func release(_ tag: String) {
        let left = (requestsInFlight[tag] ?? 1) - 1
        requestsInFlight[tag] = left > 0 ? left : nil
    }

    /// Makes `account` resident (read back from the store, or new); its clock is no longer parked.
    mutating func admit(_ account: Account) {
        accounts[account.tag] = account
        parkedClockOffsets[account.tag] = nil
    }

    /// Writes and drops from memory the least recently used account with no request in flight.
    mutating func evictOne() throws(StripeError) {
        func full(_ reason: String) -> StripeError {
            StripeError(
                status: .tooManyRequests, type: "invalid_request_error", code: "account_limit",
                message: "This mock holds at most \(limit) test keys' accounts in memory and \(reason): retry shortly, or reset accounts (POST /_mock/reset).")
        }
        guard store != nil, !persistenceDeferred else { throw full("has nowhere to write one to make room (an in-memory ledger)") }
        let idle = accounts.keys.filter { requestsInFlight[$0] == nil }.sorted { (lastUse[$0] ?? 0) < (lastUse[$1] ?? 0) }
        for tag in idle {
            // Waits for the commit's flush holding the service's thread: what is dropped next
            // must be on disk first.
            try? save(tag)?.waitBlocking()
            // Written, or it keeps changes the store could not take (a full disk): then it stays.
            guard let account = accounts[tag], !account.hasChanges else { continue }
            if account.clockOffset != 0 { parkedClockOffsets[tag] = account.clockOffset }
            accounts[tag] = nil
            lastUse[tag] = nil
            return
        }
        throw full("every one of them has a request in flight")
    }

    /// Commits what changed in the account (nil: nothing to write, or the write failed) and
    /// marks it saved before anyone waits for the flush, so a change another request makes
    /// meanwhile stays marked.
    mutating func save(_ tag: String) -> PendingFlush? {
        // No copy of the account is kept across `markSaved` (see the type's comment).
        guard !persistenceDeferred, let store, let changes = accounts[tag].flatMap({ $0.hasChanges ? $0.pendingChanges() : nil }) else { return nil }
        guard let flush = try? store.save(changes) else { return nil }
        accounts[tag]?.markSaved()
        return flush
    }

    /// Forgets `tag` in memory (a reset): its slot is free at once.
    mutating func forget(_ tag: String) {
        accounts[tag] = nil
        lastUse[tag] = nil
        parkedClockOffsets[tag] = nil
    }

    /// Forgets every account in memory and the clocks of evicted ones (a reset of every account).
    mutating func forgetAll() {
        for tag in Array(accounts.keys) { forget(tag) }
        parkedClockOffsets.removeAll()
    }

    /// How far the account's test clock is ahead of the server's, an evicted account's too.
    func clockOffset(_ tag: String) -> TimeInterval {
        accounts[tag]?.clockOffset ?? parkedClockOffsets[tag] ?? 0
    }

    func account(_ tag: String) -> Account {
        accounts[tag] ?? Account(tag: tag)
    }

    /// Changes the account in place (no copy: see the type's comment).
    mutating func update(_ tag: String, _ body: (inout Account) -> Void) {
        body(&accounts[tag, default: Account(tag: tag)])
    }

    /// Intents, refunds, charges, customers and payment methods the account holds.
    func objectCount(_ tag: String) -> Int {
        accounts[tag].map { $0.intents.count + $0.refunds.count + $0.charges.count + $0.customers.count + $0.paymentMethods.count } ?? 0
    }
}
