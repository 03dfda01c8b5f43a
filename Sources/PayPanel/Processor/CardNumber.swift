/// A primary account number (a card's PAN or a wallet's device PAN). It prints only as
/// "•••• 4242": the digits never reach a log, an error message or the database by accident.
/// Use `digits` only to hand the number to a processor.
public struct CardNumber: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The full number. Handle with care: never store, log or print it.
    public let digits: String

    /// Accepts 12 to 19 ASCII digits (spaces and dashes between groups are removed) that pass
    /// the Luhn check.
    public init(_ text: String) throws(CardNumberError) {
        // Byte-wise: every accepted character is ASCII, and this runs for every token decrypted.
        var compact: [UInt8] = []
        compact.reserveCapacity(text.utf8.count)
        for byte in text.utf8 where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "-") {
            compact.append(byte)
        }
        guard !compact.isEmpty else { throw CardNumberError.empty }
        guard compact.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { throw CardNumberError.notDigits }
        guard (12...19).contains(compact.count) else { throw CardNumberError.wrongLength(compact.count) }
        let number = String(decoding: compact, as: UTF8.self)
        guard CardNumber.passesLuhn(number) else { throw CardNumberError.failedLuhnCheck(last4: String(number.suffix(4))) }
        digits = number
    }

    /// The last four digits: the only part that may be stored or shown.
    public var last4: String { String(digits.suffix(4)) }

    /// The network the number belongs to, from its leading digits (IIN ranges); nil if unknown.
    public var network: PaymentNetwork? {
        let prefix2 = Int(digits.prefix(2)) ?? 0
        let prefix3 = Int(digits.prefix(3)) ?? 0
        let prefix4 = Int(digits.prefix(4)) ?? 0
        let prefix6 = Int(digits.prefix(6)) ?? 0
        switch true {
        case prefix2 == 34 || prefix2 == 37: return .amex
        case (51...55).contains(prefix2) || (222_100...272_099).contains(prefix6): return .masterCard
        case prefix4 == 6011 || prefix2 == 65 || (644...649).contains(prefix3): return .discover
        case (3528...3589).contains(prefix4): return .jcb
        case prefix2 == 62: return .chinaUnionPay
        case digits.hasPrefix("4"): return .visa
        default: return nil
        }
    }

    /// "•••• 4242".
    public var description: String { "•••• \(last4)" }
    public var debugDescription: String { "CardNumber(•••• \(last4))" }

    static func passesLuhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, byte) in digits.utf8.reversed().enumerated() {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return false }
            let digit = Int(byte - UInt8(ascii: "0"))
            if index % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }
}

/// Why a card number was refused. Messages show at most the last four digits.
public enum CardNumberError: PayPanelError, Equatable {
    case empty
    case notDigits
    case wrongLength(Int)
    case failedLuhnCheck(last4: String)

    public var code: String { "invalid_card_number" }

    public var message: String {
        switch self {
        case .empty: "the card number is empty: enter the 12 to 19 digits on the card"
        case .notDigits: "the card number may only contain digits (spaces and dashes between groups are fine)"
        case .wrongLength(let count): "the card number has \(count) digits; card numbers have 12 to 19"
        case .failedLuhnCheck(let last4): "the card number ending in \(last4) is mistyped (it fails the Luhn check): check the digits"
        }
    }
}

/// A card's expiry month and year. Shown and stored as MM/YY.
public struct CardExpiry: Sendable, Hashable, CustomStringConvertible {
    public let month: Int
    /// Four-digit year.
    public let year: Int

    public init(month: Int, year: Int) throws(CardExpiryError) {
        guard (1...12).contains(month), (2000...2099).contains(year) else { throw CardExpiryError(text: "\(month)/\(year)") }
        self.month = month
        self.year = year
    }

    /// Parses `MM/YY` (or `MM/YYYY`).
    public init(_ text: String) throws(CardExpiryError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2 || parts[1].count == 4,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let month = Int(parts[0]), let year = Int(parts[1]), (1...12).contains(month)
        else { throw CardExpiryError(text: text) }
        self.month = month
        self.year = parts[1].count == 2 ? 2000 + year : year
    }

    /// `MM/YY`.
    public var description: String {
        (month < 10 ? "0" : "") + "\(month)/" + String(String(year).suffix(2))
    }
}

public struct CardExpiryError: PayPanelError, Equatable {
    public let text: String
    public var code: String { "invalid_expiry" }
    public var message: String { "expiry \(JSONWriter.quoted(text)) is not a month and year: write MM/YY, such as 12/30" }
}
