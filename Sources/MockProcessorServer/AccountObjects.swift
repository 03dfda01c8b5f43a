import Foundation
import PayPanel

/// A Charge as the mock keeps it: one per authorization that reached a decision (approved, or
/// declined by the card), as Stripe makes one per attempt. What moves afterwards — captured,
/// refunded — is read from its PaymentIntent when the charge is shown (`ObjectJSON.charge`), so
/// the two can never disagree.
struct StoredCharge: Sendable {
    let id: String
    let paymentIntent: String
    let amount: Int64
    let currency: Currency
    /// `succeeded` (authorized) or `failed` (declined).
    let status: String
    let paymentMethod: String?
    let customer: String?
    let description: String?
    let receiptEmail: String?
    /// The card error of a failed charge (`card_declined`, …) and its `decline_code`.
    let failureCode: String?
    let declineCode: String?
    let failureMessage: String?
    let created: Date
}

extension StoredCharge: TableObject {
    /// Found by its PaymentIntent (`GET /v1/charges?payment_intent=…`) and its customer.
    var indexKeys: Set<String> {
        var keys: Set<String> = [StoredRefund.intentIndexKey(paymentIntent)]
        if let customer { keys.insert(StoredCustomer.indexKey(customer)) }
        return keys
    }
}

/// A PaymentMethod's public face: what Stripe shows of a card. The number itself is kept only in
/// memory (`Account.cards`), for the authorizations this process makes with it.
struct StoredPaymentMethod: Sendable {
    let id: String
    let brand: String
    let last4: String
    let expMonth: Int?
    let expYear: Int?
    let country: String?
    let funding: String
    /// Stable per card within the account, as Stripe's: SHA-256 of the account and the number.
    let fingerprint: String
    /// `apple_pay` for a network token, else nil.
    let wallet: String?
    var holderName: String?
    var customer: String?
    var metadata: [(String, String)]
    let created: Date
}

extension StoredPaymentMethod: TableObject {
    var indexKeys: Set<String> { customer.map { [StoredCustomer.indexKey($0)] } ?? [] }
}

/// A Customer. A deleted one stays, marked, as at Stripe: retrieving it answers
/// `{"id", "object": "customer", "deleted": true}` and lists leave it out.
struct StoredCustomer: Sendable {
    let id: String
    var email: String?
    var name: String?
    var description: String?
    var phone: String?
    var metadata: [(String, String)]
    var defaultPaymentMethod: String?
    let invoicePrefix: String
    let created: Date
    var deleted = false

    static func indexKey(_ customerID: String) -> String { "customer\u{0}\(customerID)" }
}

extension StoredCustomer: TableObject {
    /// Found by e-mail (`GET /v1/customers?email=…`), as Stripe filters, case-sensitively.
    var indexKeys: Set<String> { email.map { ["email\u{0}\($0)"] } ?? [] }
}
