import PayPanel

/// A Charge as the search language reads it ("Query fields for charges" on
/// docs.stripe.com/search): the charge's own fields, and those read from its intent (metadata,
/// refunded) and its payment method (the card's details), gathered once per search.
struct ChargeSearchView: SearchableObject {
    static let searchName = "Charges"

    static let searchFields = [
        SearchField(name: "amount", type: .numeric),
        SearchField(name: "billing_details.address.postal_code", type: .token),
        SearchField(name: "created", type: .numeric),
        SearchField(name: "currency", type: .token),
        SearchField(name: "customer", type: .token),
        SearchField(name: "disputed", type: .token),
        SearchField(name: "metadata", type: .token, keyed: true),
        SearchField(name: "payment_method_details.card.brand", type: .token),
        SearchField(name: "payment_method_details.card.exp_month", type: .token),
        SearchField(name: "payment_method_details.card.exp_year", type: .token),
        SearchField(name: "payment_method_details.card.fingerprint", type: .token),
        SearchField(name: "payment_method_details.card.last4", type: .token),
        SearchField(name: "refunded", type: .token),
        SearchField(name: "status", type: .token),
    ]

    let charge: StoredCharge
    let metadata: [(String, String)]
    let refunded: Bool
    let method: StoredPaymentMethod?

    func searchValue(for field: SearchClause.Field) -> SearchValue? {
        switch (field.name, field.key) {
        case ("amount", nil): .number(charge.amount)
        case ("created", nil): .number(charge.created.unixSeconds)
        case ("currency", nil): .text(charge.currency.code.lowercased())
        case ("customer", nil): charge.customer.map { .text($0) }
        // The mock has no disputes.
        case ("disputed", nil): .text("false")
        case ("metadata", let key?): metadata.first { $0.0 == key }.map { .text($0.1) }
        case ("payment_method_details.card.brand", nil): method.map { .text($0.brand) }
        case ("payment_method_details.card.exp_month", nil): method?.expMonth.map { .text(String($0)) }
        case ("payment_method_details.card.exp_year", nil): method?.expYear.map { .text(String($0)) }
        case ("payment_method_details.card.fingerprint", nil): method.map { .text($0.fingerprint) }
        case ("payment_method_details.card.last4", nil): method.map { .text($0.last4) }
        case ("refunded", nil): .text(refunded ? "true" : "false")
        case ("status", nil): .text(charge.status)
        // Only the holder's name is known here, never an address.
        default: nil
        }
    }
}
