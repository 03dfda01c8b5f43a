import Foundation
import PayPanel

/// One `sk_test_…` key's isolated world: its intents, refunds, idempotency keys, scripted card
/// chains and test clock. Parallel test suites with different keys never see each other's data.
///
/// Every collection records which of its entries changed since the account was last written
/// (`ObjectTable`, `TrackedMap`), so the account store writes those rows and no others: a
/// request's write does not grow with the account.
struct Account: Sendable {
    /// `acct_` + 16 hex digits of SHA-256(key): the key itself is never kept.
    let tag: String
    var intents = ObjectTable<StoredIntent>()
    var refunds = ObjectTable<StoredRefund>()
    var charges = ObjectTable<StoredCharge>()
    var customers = ObjectTable<StoredCustomer>()
    var paymentMethods = ObjectTable<StoredPaymentMethod>()
    /// The card behind each payment method this process saw, by `pm_…` id. Memory only: a card
    /// number is never written, so after a restart a payment method has to be made again.
    var cards: [String: PaymentMethodCard] = [:]
    var idempotency = TrackedMap<IdempotencyRecord>()
    /// Seconds the account's test clock is ahead of the server's clock.
    var clockOffset: TimeInterval = 0 {
        didSet { clockChanged = true }
    }
    private(set) var clockChanged = false
    /// Whether the store holds the account's own row (it was read from there, or written):
    /// until then every write carries the row, which the object rows refer to.
    private(set) var rowStored = false
    /// `cardKey(number)` → the remaining scripted trigger steps (the last one repeats).
    var cardChains = TrackedMap<CardChain>()

    init(tag: String) {
        self.tag = tag
    }

    /// Every ledger reference of this account starts with this (`acct_…/`).
    var ledgerPrefix: String { tag + "/" }

    /// Whether the next write must carry the account's own row: a new account's first, or its
    /// clock moved. Otherwise the row is left alone: rewriting it unchanged cost an upsert in
    /// every write of the account, two per request. (SQLite leaves a page it would overwrite
    /// with the same bytes clean, so it never cost a WAL frame: `pwrite`s per flow stayed 49.)
    var rowNeedsWriting: Bool { clockChanged || !rowStored }

    /// Whether anything changed since the account was last written.
    var hasChanges: Bool {
        clockChanged || !intents.changed.isEmpty || !refunds.changed.isEmpty || !charges.changed.isEmpty || !customers.changed.isEmpty
            || !paymentMethods.changed.isEmpty || !idempotency.changed.isEmpty || !cardChains.changed.isEmpty
    }

    /// Forgets the change sets once the store holds every change.
    mutating func markSaved() {
        intents.markSaved()
        refunds.markSaved()
        charges.markSaved()
        customers.markSaved()
        paymentMethods.markSaved()
        idempotency.markSaved()
        cardChains.markSaved()
        clockChanged = false
        rowStored = true
    }

    /// Marks everything changed: an account read from an earlier version's snapshot file, to be
    /// written whole into the store once.
    mutating func markAllChanged() {
        intents.markAllChanged()
        refunds.markAllChanged()
        charges.markAllChanged()
        customers.markAllChanged()
        paymentMethods.markAllChanged()
        idempotency.markAllChanged()
        cardChains.markAllChanged()
        clockChanged = true
    }

    /// Chains are kept under the SHA-256 of the card number, so no number reaches the disk.
    static func cardKey(_ digits: String) -> String {
        SHA256.hash(digits).hexString
    }

    static func tag(forKey key: String) -> String {
        "acct_" + String(SHA256.hash(key).hexString.prefix(16))
    }
}

/// A per-card scripted chain: each authorization with the card takes the next step.
struct CardChain: Sendable {
    let steps: [String]
    var next = 0

    mutating func take() -> String {
        let step = steps[min(next, steps.count - 1)]
        next += 1
        return step
    }
}

/// What an idempotency key holds: the request it was first used with and, once answered, the
/// answer to replay.
struct IdempotencyRecord: Sendable {
    let fingerprint: String
    let createdAt: Date
    var response: StoredResponse?
}

/// A response kept for replay.
struct StoredResponse: Sendable {
    let status: Int
    let body: [UInt8]
}

/// The card a payment method stands for. The number is kept only in memory, only for the
/// intent's next authorization; it is never written to a file or a response.
struct PaymentMethodCard: Sendable {
    let id: String
    let method: PaymentMethodData
    let brand: String
    let expMonth: Int?
    let expYear: Int?
}

/// A PaymentIntent as the mock keeps it.
struct StoredIntent: Sendable {
    let id: String
    let clientSecret: String
    var amount: Int64
    var currency: Currency
    var captureMethod: String
    var description: String?
    var metadata: [(String, String)]
    let created: Date
    var status: String
    var paymentMethod: PaymentMethodCard?
    /// Where Stripe would send the receipt (`receipt_email`), as given; the mock sends nothing.
    var receiptEmail: String? = nil
    /// `setup_future_usage` as given (`on_session`, `off_session`), echoed as Stripe does.
    var setupFutureUsage: String? = nil
    /// The payment method's id after a restart, when the card itself is no longer known.
    var paymentMethodID: String?
    /// How many authorizations were made (each confirm after a failure is a new one).
    var authorizations = 0
    var amountCapturable: Int64 = 0
    var amountReceived: Int64 = 0
    var latestCharge: String?
    var lastPaymentError: JSONValue?
    var canceledAt: Date?
    var cancellationReason: String?
    var captureBefore: Date?
    var refunded: Int64 = 0
    /// The customer it is for (`cus_…`), when given.
    var customer: String? = nil
    /// `automatic_payment_methods[allow_redirects]` (`always`, `never`) when enabled, else nil.
    var automaticPaymentMethods: String? = nil

    /// The ledger reference of the current authorization: `acct_…/pi_…/n`.
    func ledgerReference(accountPrefix: String) -> String {
        "\(accountPrefix)\(id)/\(authorizations)"
    }
}

extension StoredIntent: TableObject {
    /// Found by each metadata pair (search by `metadata['key']:'value'`).
    var indexKeys: Set<String> { Set(metadata.map { Self.metadataIndexKey($0.0, $0.1) }) }

    /// The value is lowercased: Stripe's `:` on metadata matches regardless of case, so the
    /// index must find 'ABC' under 'abc' (the key is matched as written).
    static func metadataIndexKey(_ key: String, _ value: String) -> String { "metadata\u{0}\(key)\u{0}\(value.lowercased())" }
}

/// A Refund as the mock keeps it.
struct StoredRefund: Sendable {
    let id: String
    let paymentIntent: String
    let charge: String?
    let amount: Int64
    let currency: Currency
    var status: String
    var failureReason: String?
    var metadata: [(String, String)]
    let created: Date
    let ledgerReference: String
    /// Why the merchant refunded (`duplicate`, `fraudulent`, `requested_by_customer`), as given.
    var reason: String? = nil
}

extension StoredRefund: TableObject {
    /// Found by its PaymentIntent (`GET /v1/refunds?payment_intent=…`).
    var indexKeys: Set<String> { [Self.intentIndexKey(paymentIntent)] }

    static func intentIndexKey(_ intentID: String) -> String { "payment_intent\u{0}\(intentID)" }
}
