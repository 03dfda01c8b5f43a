/// An amount of money: an integer count of the currency's minor units (cents for USD, yen for
/// JPY, fils for KWD). Never a `Double`: 0.1 + 0.2 must be 0.30, and amounts survive round-trips.
public struct Amount: Sendable, Hashable, CustomStringConvertible {
    public let minorUnits: Int64
    public let currency: Currency

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// The largest payment total Apple Pay accepts, in major units.
    public static let maximumTotalMajorUnits: Int64 = 100_000_000

    /// True when the magnitude is above the 100,000,000 major-unit ceiling.
    public var exceedsPaymentMaximum: Bool {
        let limit = Amount.maximumTotalMajorUnits.multipliedReportingOverflow(by: currency.minorUnitsPerMajorUnit)
        return !limit.overflow && minorUnits.magnitude > limit.partialValue.magnitude
    }

    /// The decimal string with exactly the currency's number of decimals: `10.00`, `-0.50`, `1000`.
    public var decimalString: String {
        let digits = String(minorUnits.magnitude)
        let sign = minorUnits < 0 ? "-" : ""
        let scale = currency.minorUnits
        guard scale > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
        return sign + padded.dropLast(scale) + "." + padded.suffix(scale)
    }

    /// `10.00 USD`.
    public var description: String { "\(decimalString) \(currency.code)" }

    /// Parses a decimal amount string for `currency`, strictly.
    ///
    /// The grammar is exactly `-?[0-9]+(\.[0-9]+)?`. `Decimal(string:)` is not used: it accepts
    /// `1e3`, ` 1`, `0x1` and `1abc`. The fraction may not be finer than the currency's minor
    /// unit (0.999 USD, 1000.5 JPY are rejected), and the result must fit in Int64 minor units.
    public static func parse(_ text: String, currency: Currency) throws(MoneyError) -> Amount {
        let minor = try AmountGrammar.minorUnits(of: text, currency: currency)
        return Amount(minorUnits: minor, currency: currency)
    }
}

/// The amount string grammar, with a precise reason for every rejection.
enum AmountGrammar {
    static func minorUnits(of text: String, currency: Currency) throws(MoneyError) -> Int64 {
        let shown = JSONWriter.quoted(text)
        func reject(_ reason: String) -> MoneyError {
            MoneyError(code: "invalid_amount", message: "amount \(shown) \(reason)")
        }
        guard !text.isEmpty else {
            throw MoneyError(code: "invalid_amount", message: "the amount is empty: write a decimal such as 10.00")
        }
        try checkCharacters(text, reject: reject)

        var bytes = Array(text.utf8)[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count > 2 { throw reject("has more than one '.'") }
        let integerDigits = parts[0]
        let fractionDigits = parts.count == 2 ? parts[1] : []
        if integerDigits.contains(UInt8(ascii: "-")) || fractionDigits.contains(UInt8(ascii: "-")) {
            throw reject("may only start with a single '-'")
        }
        if integerDigits.isEmpty {
            throw reject(parts.count == 2 ? "needs a digit before '.': write 0\(String(decoding: bytes, as: UTF8.self))" : "has no digits")
        }
        if parts.count == 2 && fractionDigits.isEmpty {
            throw reject("needs digits after '.': write \(String(decoding: integerDigits, as: UTF8.self)) or add the decimals")
        }
        if fractionDigits.count > currency.minorUnits {
            if currency.minorUnits == 0 {
                throw reject("has decimals, but \(currency.code) has no minor unit: write a whole number")
            }
            throw reject(
                "has \(fractionDigits.count) decimal places, but \(currency.code) has \(currency.minorUnits): amounts cannot be finer than the currency's minor unit")
        }

        var value: Int64 = 0
        let overflow = reject("is too large")
        let padding = currency.minorUnits - fractionDigits.count
        for digit in Array(integerDigits) + Array(fractionDigits) + Array(repeating: UInt8(ascii: "0"), count: padding) {
            let times10 = value.multipliedReportingOverflow(by: 10)
            if times10.overflow { throw overflow }
            let sum = times10.partialValue.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            if sum.overflow { throw overflow }
            value = sum.partialValue
        }
        return negative ? -value : value
    }

    /// Rejects anything that is not an ASCII digit, '.' or '-', naming the most helpful reason.
    private static func checkCharacters(_ text: String, reject: (String) -> MoneyError) throws(MoneyError) {
        if text.last == "\n" || text.last == "\r\n" || text.last == "\r" {
            throw reject("ends with a line break: remove it")
        }
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let position = offset + 1
            switch scalar {
            case "0"..."9", ".", "-":
                continue
            case "+":
                throw reject("has a '+' sign: write the number without it")
            case "e", "E":
                throw reject("has an exponent: write a plain decimal such as 1000.00")
            case ",":
                throw reject("has a ',': use '.' as the decimal separator and no thousands separators")
            default:
                if scalar.properties.isWhitespace {
                    throw reject("contains white space at position \(position): write the number alone")
                }
                if scalar.properties.numericType != nil {
                    throw reject("contains the non-ASCII digit U+\(String(scalar.value, radix: 16, uppercase: true)) at position \(position): use 0-9")
                }
                let shown = scalar.value >= 0x20 && scalar.value != 0x7F ? "'\(Character(scalar))'" : "U+\(String(scalar.value, radix: 16, uppercase: true))"
                throw reject("has the unexpected character \(shown) at position \(position): use only digits, '.' and a leading '-'")
            }
        }
    }
}
