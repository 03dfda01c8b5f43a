/// PaymentIntents' search fields, as Stripe lists them ("Query fields for payment intents" on
/// docs.stripe.com/search): none takes `~`, since none is of the string type.
extension StoredIntent: SearchableObject {
    static let searchName = "PaymentIntents"

    static let searchFields = [
        SearchField(name: "amount", type: .numeric),
        SearchField(name: "created", type: .numeric),
        SearchField(name: "currency", type: .token),
        SearchField(name: "customer", type: .token),
        SearchField(name: "metadata", type: .token, keyed: true),
        SearchField(name: "status", type: .token),
    ]

    func searchValue(for field: SearchClause.Field) -> SearchValue? {
        switch (field.name, field.key) {
        case ("amount", nil): .number(amount)
        // Unix seconds, as the object's `created` shows it.
        case ("created", nil): .number(created.unixSeconds)
        case ("currency", nil): .text(currency.code.lowercased())
        case ("customer", nil): customer.map { .text($0) }
        case ("metadata", let key?): metadata.first { $0.0 == key }.map { .text($0.1) }
        case ("status", nil): .text(status)
        default: nil
        }
    }
}
