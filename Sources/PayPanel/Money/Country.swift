/// An ISO 3166-1 country, identified by its alpha-2 code (what Apple Pay's `countryCode` takes).
public struct Country: Sendable, Hashable, CustomStringConvertible {
    public let alpha2: String
    public let alpha3: String
    public let numericCode: Int
    public let name: String

    init(alpha2: String, alpha3: String, numericCode: Int, name: String) {
        self.alpha2 = alpha2
        self.alpha3 = alpha3
        self.numericCode = numericCode
        self.name = name
    }

    /// Looks up a country strictly: an upper-case ISO 3166-1 alpha-2 code.
    public init(alpha2 code: String) throws(MoneyError) {
        if let country = Country.byAlpha2[code] {
            self = country
            return
        }
        guard !code.isEmpty else {
            throw MoneyError(code: "invalid_country", message: "the country code is empty: use an ISO 3166-1 alpha-2 code such as US")
        }
        let upper = code.uppercased()
        if upper != code, Country.byAlpha2[upper] != nil {
            throw MoneyError(
                code: "invalid_country",
                message: "country code \(JSONWriter.quoted(code)) must be upper case: write \(JSONWriter.quoted(upper))")
        }
        if let country = Country.byAlpha3[upper] {
            throw MoneyError(
                code: "invalid_country",
                message: "\(JSONWriter.quoted(code)) is an alpha-3 code; use the alpha-2 code \(JSONWriter.quoted(country.alpha2))")
        }
        if code.count != 2 || !code.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            throw MoneyError(
                code: "invalid_country",
                message: "country code \(JSONWriter.quoted(code)) must be 2 upper-case letters from ISO 3166-1, such as US")
        }
        throw MoneyError(
            code: "invalid_country",
            message: "\(JSONWriter.quoted(code)) is not an ISO 3166-1 alpha-2 country code; use one such as US, GB or JP")
    }

    public var description: String { alpha2 }

    /// Every ISO 3166-1 country, sorted by alpha-2 code.
    public static var all: [Country] { table }

    static let byAlpha2: [String: Country] = Dictionary(uniqueKeysWithValues: table.map { ($0.alpha2, $0) })
    static let byAlpha3: [String: Country] = Dictionary(uniqueKeysWithValues: table.map { ($0.alpha3, $0) })
}
