/// A currency that payments can be made in: an ISO 4217 code with a minor unit
/// (USD has 2 decimal places, JPY 0, KWD 3).
public struct Currency: Sendable, Hashable, CustomStringConvertible {
    /// The upper-case alphabetic code, e.g. `USD`.
    public let code: String
    /// The ISO 4217 numeric code, e.g. 840 (Apple Pay tokens carry this form).
    public let numericCode: Int
    /// Digits after the decimal point in the currency's smallest unit.
    public let minorUnits: Int
    /// The ISO 4217 name, e.g. "US Dollar".
    public let name: String

    /// Looks up a payment currency by its alphabetic code, strictly: upper case, known to
    /// ISO 4217, and with a minor unit (gold or SDR cannot be paid in).
    public init(code: String) throws(MoneyError) {
        guard !code.isEmpty else {
            throw MoneyError(code: "invalid_currency", message: "the currency code is empty: use an ISO 4217 code such as USD")
        }
        guard let entry = ISO4217Entry.byCode[code] else {
            let upper = code.uppercased()
            if upper != code, ISO4217Entry.byCode[upper] != nil {
                throw MoneyError(
                    code: "invalid_currency",
                    message: "currency code \(JSONWriter.quoted(code)) must be upper case: write \(JSONWriter.quoted(upper))")
            }
            if code.count != 3 || !code.allSatisfy({ $0.isASCII && $0.isUppercase }) {
                throw MoneyError(
                    code: "invalid_currency",
                    message: "currency code \(JSONWriter.quoted(code)) must be 3 upper-case letters from ISO 4217, such as USD")
            }
            throw MoneyError(
                code: "invalid_currency",
                message: "\(JSONWriter.quoted(code)) is not an ISO 4217 currency code; use one such as USD, EUR or JPY")
        }
        guard let minorUnits = entry.minorUnits else {
            throw MoneyError(
                code: "invalid_currency",
                message: "\(code) (\(entry.name)) has no minor unit in ISO 4217 and is not a payment currency")
        }
        self.init(code: entry.code, numericCode: entry.numericCode, minorUnits: minorUnits, name: entry.name)
    }

    /// Looks up a payment currency by its ISO 4217 numeric code (`"840"` in Apple Pay tokens).
    public init(numericCode: Int) throws(MoneyError) {
        guard let entry = ISO4217Entry.byNumericCode[numericCode] else {
            throw MoneyError(code: "invalid_currency", message: "\(numericCode) is not an ISO 4217 numeric currency code")
        }
        try self.init(code: entry.code)
    }

    private init(code: String, numericCode: Int, minorUnits: Int, name: String) {
        self.code = code
        self.numericCode = numericCode
        self.minorUnits = minorUnits
        self.name = name
    }

    /// Every payment currency (ISO 4217 codes that have a minor unit), sorted by code.
    public static let all: [Currency] = ISO4217Entry.table.compactMap { entry in
        entry.minorUnits.map { Currency(code: entry.code, numericCode: entry.numericCode, minorUnits: $0, name: entry.name) }
    }

    /// The currency with the most decimal places (4, e.g. CLF): checks an amount's grammar when
    /// its own currency is unknown.
    package static let finest: Currency = all.max { $0.minorUnits < $1.minorUnits }!

    /// 10^minorUnits: how many minor units make one major unit.
    public var minorUnitsPerMajorUnit: Int64 {
        var factor: Int64 = 1
        for _ in 0..<minorUnits { factor *= 10 }
        return factor
    }

    public var description: String { code }

    public static func == (lhs: Currency, rhs: Currency) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// One row of the ISO 4217 list, including codes without a minor unit.
struct ISO4217Entry: Sendable {
    let code: String
    let numericCode: Int
    let minorUnits: Int?
    let name: String

    static let byCode: [String: ISO4217Entry] = Dictionary(uniqueKeysWithValues: table.map { ($0.code, $0) })
    static let byNumericCode: [Int: ISO4217Entry] = Dictionary(table.map { ($0.numericCode, $0) }, uniquingKeysWith: { first, _ in first })
}

/// A rejected money value: an amount, currency or country that does not follow the rules.
public struct MoneyError: PayPanelError, Equatable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
