import Foundation
import PayPanel

/// Keeps each account on disk next to the ledger (`<ledger>.accounts/<acct_…>.json`), so a
/// restarted `processor serve` still knows its intents, refunds, idempotency keys, chains and
/// clocks, and a search after a crash finds what was made before it.
///
/// What is never written: card numbers and cryptograms (a payment method is kept as its id,
/// brand, last four digits and expiry), and answers still in flight (a key whose request was
/// interrupted by the crash is free again, so a retry reaches the ledger, which replays).
/// Each account's file is replaced atomically (write beside, rename) after every request that
/// changed it and before the answer is sent, so an answer a client saw is on disk.
struct AccountSnapshots: Sendable {
    let directory: String

    /// Snapshots beside the ledger at `ledgerPath`; none for an in-memory ledger.
    init?(ledgerPath: String) {
        guard ledgerPath != ":memory:", !ledgerPath.isEmpty else { return nil }
        directory = ledgerPath + ".accounts"
    }

    func save(_ account: Account) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder().encode(PersistedAccount(account))
        let path = directory + "/" + account.tag + ".json"
        // AtomicFile, as every replaced file of the project: where the temporary file lives and
        // what happens to it on failure are written here, not left to the platform's Foundation.
        try AtomicFile.replace(path, with: Array(data), durable: false)
        chmod(path, 0o600)
    }

    func remove(_ tag: String) {
        try? FileManager.default.removeItem(atPath: directory + "/" + tag + ".json")
    }

    func removeAll() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix("acct_") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    /// Every saved account; a file that cannot be read is skipped (and reported by name).
    func loadAll() -> (accounts: [Account], unreadable: [String]) {
        var accounts: [Account] = []
        var unreadable: [String] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        where name.hasPrefix("acct_") && name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                let persisted = try? JSONDecoder().decode(PersistedAccount.self, from: data), let account = persisted.account
            else {
                unreadable.append(name)
                continue
            }
            accounts.append(account)
        }
        return (accounts, unreadable)
    }
}

/// An account as written to disk.
struct PersistedAccount: Codable {
    struct Intent: Codable {
        var id, clientSecret, currency, captureMethod, status: String
        var amount, amountCapturable, amountReceived, refunded: Int64
        var description, latestCharge, lastPaymentError, cancellationReason, paymentMethodID: String?
        var metadata: [[String]]
        var created: Double
        var canceledAt, captureBefore: Double?
        var authorizations: Int
    }
    struct Refund: Codable {
        var id, paymentIntent, currency, status, ledgerReference: String
        var charge, failureReason: String?
        var amount: Int64
        var metadata: [[String]]
        var created: Double
    }
    struct Key: Codable {
        var key, fingerprint: String
        var createdAt: Double
        var status: Int
        var body: String
    }
    struct Chain: Codable {
        var card: String
        var steps: [String]
        var next: Int
    }

    var tag: String
    var intents: [Intent]
    var refunds: [Refund]
    var keys: [Key]
    var chains: [Chain]
    var clockOffset: Double

    init(_ account: Account) {
        tag = account.tag
        intents = account.intentOrder.compactMap { account.intents[$0] }.map { intent in
            Intent(
                id: intent.id, clientSecret: intent.clientSecret, currency: intent.currency.code, captureMethod: intent.captureMethod,
                status: intent.status, amount: intent.amount, amountCapturable: intent.amountCapturable,
                amountReceived: intent.amountReceived, refunded: intent.refunded, description: intent.description,
                latestCharge: intent.latestCharge, lastPaymentError: intent.lastPaymentError.map { JSONWriter.string($0) },
                cancellationReason: intent.cancellationReason, paymentMethodID: intent.paymentMethod?.id ?? intent.paymentMethodID,
                metadata: intent.metadata.map { [$0.0, $0.1] }, created: intent.created.timeIntervalSince1970,
                canceledAt: intent.canceledAt?.timeIntervalSince1970, captureBefore: intent.captureBefore?.timeIntervalSince1970,
                authorizations: intent.authorizations)
        }
        refunds = account.refundOrder.compactMap { account.refunds[$0] }.map { refund in
            Refund(
                id: refund.id, paymentIntent: refund.paymentIntent, currency: refund.currency.code, status: refund.status,
                ledgerReference: refund.ledgerReference, charge: refund.charge, failureReason: refund.failureReason,
                amount: refund.amount, metadata: refund.metadata.map { [$0.0, $0.1] }, created: refund.created.timeIntervalSince1970)
        }
        keys = account.idempotency.sorted { $0.key < $1.key }.compactMap { key, record in
            record.response.map {
                Key(key: key, fingerprint: record.fingerprint, createdAt: record.createdAt.timeIntervalSince1970, status: $0.status,
                    body: String(decoding: $0.body, as: UTF8.self))
            }
        }
        chains = account.cardChains.sorted { $0.key < $1.key }.map { Chain(card: $0.key, steps: $0.value.steps, next: $0.value.next) }
        clockOffset = account.clockOffset
    }

    var account: Account? {
        var account = Account(tag: tag)
        for saved in intents {
            guard let currency = try? Currency(code: saved.currency) else { return nil }
            var intent = StoredIntent(
                id: saved.id, clientSecret: saved.clientSecret, amount: saved.amount, currency: currency, captureMethod: saved.captureMethod,
                description: saved.description, metadata: saved.metadata.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
                created: Date(timeIntervalSince1970: saved.created), status: saved.status, paymentMethod: nil)
            intent.paymentMethodID = saved.paymentMethodID
            // The card number was never written: an intent waiting for confirmation needs its card again.
            if intent.status == "requires_confirmation" { intent.status = "requires_payment_method" }
            intent.authorizations = saved.authorizations
            intent.amountCapturable = saved.amountCapturable
            intent.amountReceived = saved.amountReceived
            intent.refunded = saved.refunded
            intent.latestCharge = saved.latestCharge
            intent.lastPaymentError = saved.lastPaymentError.flatMap { try? JSONParser().parse($0) }
            intent.cancellationReason = saved.cancellationReason
            intent.canceledAt = saved.canceledAt.map(Date.init(timeIntervalSince1970:))
            intent.captureBefore = saved.captureBefore.map(Date.init(timeIntervalSince1970:))
            account.intents[intent.id] = intent
            account.intentOrder.append(intent.id)
        }
        for saved in refunds {
            guard let currency = try? Currency(code: saved.currency) else { return nil }
            account.refunds[saved.id] = StoredRefund(
                id: saved.id, paymentIntent: saved.paymentIntent, charge: saved.charge, amount: saved.amount, currency: currency,
                status: saved.status, failureReason: saved.failureReason,
                metadata: saved.metadata.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
                created: Date(timeIntervalSince1970: saved.created), ledgerReference: saved.ledgerReference)
            account.refundOrder.append(saved.id)
        }
        for saved in keys {
            account.idempotency[saved.key] = IdempotencyRecord(
                fingerprint: saved.fingerprint, createdAt: Date(timeIntervalSince1970: saved.createdAt),
                response: StoredResponse(status: saved.status, body: Array(saved.body.utf8)))
        }
        for saved in chains where !saved.steps.isEmpty {
            account.cardChains[saved.card] = CardChain(steps: saved.steps, next: saved.next)
        }
        account.clockOffset = clockOffset
        return account
    }
}
