import PayPanel
import Testing

@Suite struct AmountParsingTests {
    static let usd = try! Currency(code: "USD")
    static let jpy = try! Currency(code: "JPY")
    static let kwd = try! Currency(code: "KWD")

    @Test(arguments: [
        ("10", "USD", Int64(1000)), ("10.5", "USD", 1050), ("10.00", "USD", 1000), ("0.01", "USD", 1),
        ("-0.50", "USD", -50), ("007", "USD", 700), ("1000", "JPY", 1000), ("1.234", "KWD", 1234),
        ("0", "USD", 0), ("100000000", "USD", 10_000_000_000), ("92233720368547758.07", "USD", Int64.max),
    ])
    func acceptsPlainDecimalsUpToTheMinorUnit(text: String, currency: String, minorUnits: Int64) throws {
        let amount = try Amount.parse(text, currency: Currency(code: currency))
        #expect(amount.minorUnits == minorUnits)
    }

    @Test(arguments: [
        ("", "empty"), (" 1", "white space"), ("1 ", "white space"), ("1\u{A0}000", "white space"),
        ("1\n", "line break"), ("1\r\n", "line break"), ("+1", "'+'"), ("1e3", "exponent"), ("1E3", "exponent"),
        ("0x1", "unexpected character 'x'"), ("1abc", "unexpected character 'a'"), ("1,00", "','"),
        ("١٢", "non-ASCII digit"), ("１", "non-ASCII digit"), (".5", "before '.'"), ("5.", "after '.'"),
        ("1.2.3", "more than one '.'"), ("--1", "single '-'"), ("1-", "single '-'"), ("-", "no digits"),
        ("0.999", "3 decimal places, but USD has 2"), ("92233720368547758.08", "too large"),
        ("99999999999999999999", "too large"), ("NaN", "unexpected character"), ("∞", "unexpected character"),
    ])
    func rejectsEverythingElseWithAReason(text: String, expectedReason: String) {
        #expect {
            try Amount.parse(text, currency: Self.usd)
        } throws: { error in
            guard let error = error as? MoneyError else { return false }
            return error.code == "invalid_amount" && error.message.contains(expectedReason)
        }
    }

    @Test func yenHasNoDecimals() {
        #expect(throws: MoneyError.self) { try Amount.parse("1000.5", currency: Self.jpy) }
        #expect(throws: MoneyError.self) { try Amount.parse("1000.0", currency: Self.jpy) }
    }

    @Test func dinarAllowsThreeDecimalsButNotFour() throws {
        #expect(try Amount.parse("1.234", currency: Self.kwd).minorUnits == 1234)
        #expect(throws: MoneyError.self) { try Amount.parse("1.2345", currency: Self.kwd) }
    }

    @Test(arguments: [
        (Int64(1000), "USD", "10.00"), (5, "USD", "0.05"), (-50, "USD", "-0.50"), (1000, "JPY", "1000"),
        (1234, "KWD", "1.234"), (0, "USD", "0.00"), (Int64.min, "USD", "-92233720368547758.08"),
    ])
    func formatsWithTheCurrencysDecimals(minorUnits: Int64, currency: String, text: String) throws {
        #expect(Amount(minorUnits: minorUnits, currency: try Currency(code: currency)).decimalString == text)
    }

    @Test(arguments: ["0.00", "10.50", "-3.07", "123456.78"])
    func formattingRoundTrips(text: String) throws {
        #expect(try Amount.parse(text, currency: Self.usd).decimalString == text)
    }

    @Test func theCeilingIsOneHundredMillionMajorUnits() throws {
        #expect(!(try Amount.parse("100000000.00", currency: Self.usd)).exceedsPaymentMaximum)
        #expect(try Amount.parse("100000000.01", currency: Self.usd).exceedsPaymentMaximum)
        #expect(try Amount.parse("-100000000.01", currency: Self.usd).exceedsPaymentMaximum)
        #expect(try Amount.parse("100000001", currency: Self.jpy).exceedsPaymentMaximum)
    }

    @Test func errorMessagesQuoteTheInputVisibly() {
        #expect {
            try Amount.parse("10.00\n", currency: Self.usd)
        } throws: { error in
            (error as? MoneyError)?.message.contains(#""10.00\n""#) == true
        }
    }
}
