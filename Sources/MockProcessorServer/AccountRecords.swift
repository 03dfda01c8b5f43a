import Foundation
import PayPanel

/// The JSON shapes an account's objects are written in: each is one row's `body` in the account
/// store (`AccountStore`), and together they were the whole-account snapshot file of earlier
/// versions (`<ledger>.accounts/acct_….json`, read once by `LegacyAccountFiles`). The member
/// names are those of that file, so both read with the same code.
///
/// What is never written: card numbers and cryptograms (a payment method is kept as its id,
/// brand, last four digits and expiry), and answers still in flight (a key whose request was
/// interrupted by a crash is free again, so a retry reaches the ledger, which replays).
struct PersistedAccount: Codable {
    struct Intent: Codable {
        var id, clientSecret, currency, captureMethod, status: String
        var amount, amountCapturable, amountReceived, refunded: Int64
        var description, latestCharge, lastPaymentError, cancellationReason, paymentMethodID: String?
        /// Absent in rows written before they existed (read as nil).
        var setupFutureUsage, receiptEmail, customer, automaticPaymentMethods: String?
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
        /// Absent in accounts written before refunds kept their reason.
        var reason: String?
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

    /// The account as it was written (nil when an object names an unknown currency); every
    /// object marked changed, so the store writes it whole.
    var account: Account? {
        var account = Account(tag: tag)
        for (position, saved) in intents.enumerated() {
            guard let intent = saved.stored else { return nil }
            account.intents.load(intent, id: intent.id, position: Int64(position + 1))
        }
        for (position, saved) in refunds.enumerated() {
            guard let refund = saved.stored else { return nil }
            account.refunds.load(refund, id: refund.id, position: Int64(position + 1))
        }
        for saved in keys { account.idempotency.load(saved.record, key: saved.key) }
        for saved in chains where !saved.steps.isEmpty { account.cardChains.load(saved.chain, key: saved.card) }
        account.clockOffset = clockOffset
        account.markAllChanged()
        return account
    }
}

extension PersistedAccount.Intent {
    init(_ intent: StoredIntent) {
        self.init(
            id: intent.id, clientSecret: intent.clientSecret, currency: intent.currency.code, captureMethod: intent.captureMethod,
            status: intent.status, amount: intent.amount, amountCapturable: intent.amountCapturable,
            amountReceived: intent.amountReceived, refunded: intent.refunded, description: intent.description,
            latestCharge: intent.latestCharge, lastPaymentError: intent.lastPaymentError.map { JSONWriter.string($0) },
            cancellationReason: intent.cancellationReason, paymentMethodID: intent.paymentMethod?.id ?? intent.paymentMethodID,
            setupFutureUsage: intent.setupFutureUsage, receiptEmail: intent.receiptEmail, customer: intent.customer,
            automaticPaymentMethods: intent.automaticPaymentMethods,
            metadata: intent.metadata.map { [$0.0, $0.1] }, created: intent.created.timeIntervalSince1970,
            canceledAt: intent.canceledAt?.timeIntervalSince1970, captureBefore: intent.captureBefore?.timeIntervalSince1970,
            authorizations: intent.authorizations)
    }

    /// The intent as the service keeps it; nil for an unknown currency.
    var stored: StoredIntent? {
        guard let currency = try? Currency(code: currency) else { return nil }
        var intent = StoredIntent(
            id: id, clientSecret: clientSecret, amount: amount, currency: currency, captureMethod: captureMethod,
            description: description, metadata: metadata.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
            created: Date(timeIntervalSince1970: created), status: status, paymentMethod: nil)
        intent.paymentMethodID = paymentMethodID
        intent.setupFutureUsage = setupFutureUsage
        intent.receiptEmail = receiptEmail
        intent.customer = customer
        intent.automaticPaymentMethods = automaticPaymentMethods
        // The card number was never written: an intent waiting for confirmation needs its card again.
        if intent.status == "requires_confirmation" { intent.status = "requires_payment_method" }
        intent.authorizations = authorizations
        intent.amountCapturable = amountCapturable
        intent.amountReceived = amountReceived
        intent.refunded = refunded
        intent.latestCharge = latestCharge
        intent.lastPaymentError = lastPaymentError.flatMap { try? JSONParser().parse($0) }
        intent.cancellationReason = cancellationReason
        intent.canceledAt = canceledAt.map(Date.init(timeIntervalSince1970:))
        intent.captureBefore = captureBefore.map(Date.init(timeIntervalSince1970:))
        return intent
    }
}

extension PersistedAccount.Refund {
    init(_ refund: StoredRefund) {
        self.init(
            id: refund.id, paymentIntent: refund.paymentIntent, currency: refund.currency.code, status: refund.status,
            ledgerReference: refund.ledgerReference, charge: refund.charge, failureReason: refund.failureReason,
            amount: refund.amount, metadata: refund.metadata.map { [$0.0, $0.1] }, created: refund.created.timeIntervalSince1970,
            reason: refund.reason)
    }

    /// The refund as the service keeps it; nil for an unknown currency.
    var stored: StoredRefund? {
        guard let currency = try? Currency(code: currency) else { return nil }
        return StoredRefund(
            id: id, paymentIntent: paymentIntent, charge: charge, amount: amount, currency: currency, status: status,
            failureReason: failureReason, metadata: metadata.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
            created: Date(timeIntervalSince1970: created), ledgerReference: ledgerReference, reason: reason)
    }
}

extension PersistedAccount.Key {
    /// Only a key with its answer is written: one still in flight is free again after a crash.
    init?(key: String, _ record: IdempotencyRecord) {
        guard let response = record.response else { return nil }
        self.init(
            key: key, fingerprint: record.fingerprint, createdAt: record.createdAt.timeIntervalSince1970, status: response.status,
            body: String(decoding: response.body, as: UTF8.self))
    }

    var record: IdempotencyRecord {
        IdempotencyRecord(
            fingerprint: fingerprint, createdAt: Date(timeIntervalSince1970: createdAt),
            response: StoredResponse(status: status, body: Array(body.utf8)))
    }
}

extension PersistedAccount.Chain {
    init(card: String, _ chain: CardChain) {
        self.init(card: card, steps: chain.steps, next: chain.next)
    }

    var chain: CardChain { CardChain(steps: steps, next: next) }
}

/// The rows of the objects added in migration 0002: charges, customers, payment methods. Each is
/// written whole; dates as Unix seconds, currencies as codes, metadata as pairs.
enum PersistedObjects {
    struct Charge: Codable {
        var id, paymentIntent, currency, status: String
        var amount: Int64
        var paymentMethod, customer, description, receiptEmail, failureCode, declineCode, failureMessage: String?
        var created: Double

        init(_ charge: StoredCharge) {
            id = charge.id
            paymentIntent = charge.paymentIntent
            currency = charge.currency.code
            status = charge.status
            amount = charge.amount
            paymentMethod = charge.paymentMethod
            customer = charge.customer
            description = charge.description
            receiptEmail = charge.receiptEmail
            failureCode = charge.failureCode
            declineCode = charge.declineCode
            failureMessage = charge.failureMessage
            created = charge.created.timeIntervalSince1970
        }

        var stored: StoredCharge? {
            guard let currency = try? Currency(code: currency) else { return nil }
            return StoredCharge(
                id: id, paymentIntent: paymentIntent, amount: amount, currency: currency, status: status, paymentMethod: paymentMethod,
                customer: customer, description: description, receiptEmail: receiptEmail, failureCode: failureCode, declineCode: declineCode,
                failureMessage: failureMessage, created: Date(timeIntervalSince1970: created))
        }
    }

    struct Customer: Codable {
        var id, invoicePrefix: String
        var email, name, description, phone, defaultPaymentMethod: String?
        var metadata: [[String]]
        var created: Double
        var deleted: Bool

        init(_ customer: StoredCustomer) {
            id = customer.id
            invoicePrefix = customer.invoicePrefix
            email = customer.email
            name = customer.name
            description = customer.description
            phone = customer.phone
            defaultPaymentMethod = customer.defaultPaymentMethod
            metadata = customer.metadata.map { [$0.0, $0.1] }
            created = customer.created.timeIntervalSince1970
            deleted = customer.deleted
        }

        var stored: StoredCustomer {
            StoredCustomer(
                id: id, email: email, name: name, description: description, phone: phone,
                metadata: metadata.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }, defaultPaymentMethod: defaultPaymentMethod,
                invoicePrefix: invoicePrefix, created: Date(timeIntervalSince1970: created), deleted: deleted)
        }
    }

    struct PaymentMethod: Codable {
        var id, brand, last4, funding, fingerprint: String
        var expMonth, expYear: Int?
        var country, wallet, holderName, customer: String?
        var metadata: [[String]]
        var created: Double

        init(_ method: StoredPaymentMethod) {
            id = method.id
            brand = method.brand
            last4 = method.last4
            funding = method.funding
            fingerprint = method.fingerprint
            expMonth = method.expMonth
            expYear = method.expYear
            country = method.country
            wallet = method.wallet
            holderName = method.holderName
            customer = method.customer
            metadata = method.metadata.map { [$0.0, $0.1] }
            created = method.created.timeIntervalSince1970
        }

        var stored: StoredPaymentMethod {
            StoredPaymentMethod(
                id: id, brand: brand, last4: last4, expMonth: expMonth, expYear: expYear, country: country, funding: funding,
                fingerprint: fingerprint, wallet: wallet, holderName: holderName, customer: customer,
                metadata: metadata.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }, created: Date(timeIntervalSince1970: created))
        }
    }
}
