import PayPanel

/// A charge amount as Stripe checks it: a whole number of the currency's minor units, at most
/// eight digits (`amount_too_large`) and at least the currency's minimum charge
/// (`amount_too_small`), each refusal naming `amount` with Stripe's code.
enum StripeAmount {
    /// Stripe's ceiling for every currency: eight digits of minor units.
    static let maximum: Int64 = 99_999_999

    /// Stripe's minimum charge per presentment currency, in minor units, from its "Minimum and
    /// maximum charge amounts" table (docs.stripe.com/currencies) for the currencies it lists. At
    /// Stripe any other currency is converted to the account's settlement currency and held to
    /// that minimum; the mock has no exchange rates, so for those it asks for at least 1. (BGN,
    /// in Stripe's table until Bulgaria took the euro, is no longer in ISO 4217 here.)
    static let minimums: [String: Int64] = [
        "USD": 50, "AED": 200, "AUD": 50, "BRL": 50, "CAD": 50, "CHF": 50, "CZK": 1500, "DKK": 250,
        "EUR": 50, "GBP": 30, "HKD": 400, "HUF": 17500, "INR": 50, "JPY": 50, "MXN": 1000, "MYR": 200, "NOK": 300,
        "NZD": 50, "PLN": 200, "RON": 200, "SEK": 300, "SGD": 50, "THB": 1000,
    ]

    static func minimum(_ currency: Currency) -> Int64 { minimums[currency.code] ?? 1 }

    /// The amount `parameters[name]` holds for a charge in `currency`; nil when absent.
    static func read(_ parameters: Parameters, _ name: String, currency: Currency) throws(StripeError) -> Int64? {
        guard let amount = try parameters.integer(name, in: 0...Int64.max) else { return nil }
        try check(amount, name, currency: currency)
        return amount
    }

    /// Refuses `amount` outside Stripe's bounds for `currency`, as Stripe words it.
    static func check(_ amount: Int64, _ name: String, currency: Currency) throws(StripeError) {
        if amount > maximum {
            throw .invalidRequest("Amount must be no more than \(spoken(maximum, currency)).", param: name, code: "amount_too_large")
        }
        let least = minimum(currency)
        if amount < least {
            throw .invalidRequest("Amount must be at least \(spoken(least, currency)).", param: name, code: "amount_too_small")
        }
    }

    /// `0.50 usd`, `50 jpy`: major units and the lower-case code, as Stripe's messages show them.
    static func spoken(_ minor: Int64, _ currency: Currency) -> String {
        let per = currency.minorUnitsPerMajorUnit
        let code = currency.code.lowercased()
        guard per > 1 else { return "\(minor) \(code)" }
        let fraction = String(minor % per)
        let padded = String(repeating: "0", count: max(0, currency.minorUnits - fraction.count)) + fraction
        return "\(minor / per).\(padded) \(code)"
    }
}
