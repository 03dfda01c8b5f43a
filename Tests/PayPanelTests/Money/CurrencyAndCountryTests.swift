import Foundation
import PayPanel
import TestSupport
import Testing

@Suite struct CurrencyAndCountryTests {
    @Test(arguments: [("USD", 2, 840), ("JPY", 0, 392), ("KWD", 3, 414), ("BHD", 3, 48), ("CLF", 4, 990)])
    func knowsMinorUnits(code: String, minorUnits: Int, numeric: Int) throws {
        let currency = try Currency(code: code)
        #expect(currency.minorUnits == minorUnits)
        #expect(currency.numericCode == numeric)
        #expect(try Currency(numericCode: numeric) == currency)
    }

    @Test(arguments: [
        ("usd", "must be upper case: write \"USD\""), ("USDD", "3 upper-case letters"), ("XBT", "not an ISO 4217"),
        ("XAU", "has no minor unit"), ("XTS", "has no minor unit"), ("", "empty"), ("US", "3 upper-case letters"),
    ])
    func rejectsCurrencyCodesWithAReason(code: String, reason: String) {
        #expect {
            try Currency(code: code)
        } throws: { error in
            (error as? MoneyError)?.message.contains(reason) == true
        }
    }

    @Test(arguments: [
        ("us", "must be upper case: write \"US\""), ("USA", "alpha-3 code; use the alpha-2 code \"US\""),
        ("XX", "not an ISO 3166-1"), ("U", "2 upper-case letters"), ("", "empty"),
    ])
    func rejectsCountryCodesWithAReason(code: String, reason: String) {
        #expect {
            try Country(alpha2: code)
        } throws: { error in
            (error as? MoneyError)?.message.contains(reason) == true
        }
    }

    /// The compiled tables must say what the ISO lists in ../shared/data say.
    @Test(.enabled(if: RepositoryPaths.shared("data/iso4217.csv") != nil, "../shared/data/iso4217.csv is not on this machine"))
    func currencyTableMatchesTheISOList() throws {
        let rows = try csvRows(RepositoryPaths.shared("data/iso4217.csv")!)
        var payable = 0
        for row in rows {
            if row[2] == "N.A." {
                #expect(throws: MoneyError.self) { try Currency(code: row[0]) }
            } else {
                let currency = try Currency(code: row[0])
                #expect(currency.minorUnits == Int(row[2]))
                #expect(currency.numericCode == Int(row[1]))
                payable += 1
            }
        }
        #expect(Currency.all.count == payable)
    }

    @Test(.enabled(if: RepositoryPaths.shared("data/iso3166-1.csv") != nil, "../shared/data/iso3166-1.csv is not on this machine"))
    func countryTableMatchesTheISOList() throws {
        let rows = try csvRows(RepositoryPaths.shared("data/iso3166-1.csv")!)
        #expect(Country.all.count == rows.count)
        for row in rows {
            let country = try Country(alpha2: row[0])
            #expect(country.alpha3 == row[1])
            #expect(country.numericCode == Int(row[2]))
        }
    }

    /// Rows of a simple CSV (quoted fields may hold commas), without the header.
    private func csvRows(_ path: String) throws -> [[String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).dropFirst().map { line in
            var fields: [String] = []
            var field = ""
            var quoted = false
            for character in line {
                if character == "\"" { quoted.toggle() } else if character == "," && !quoted {
                    fields.append(field)
                    field = ""
                } else { field.append(character) }
            }
            fields.append(field)
            return fields
        }
    }
}
