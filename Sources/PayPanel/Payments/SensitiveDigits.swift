/// The one rule for card numbers in text, used by every refusal of free text and by every
/// redaction of text shown or stored.
///
/// A card number is what a card number can be: a run of ASCII digits that passes the Luhn check
/// and has 13 to 19 digits after its leading zeros, either contiguous (`4242424242424242`) or
/// written in groups of 3 to 6 digits joined by one kind of single separator, a space or a dash
/// (`4242 4242 4242 4242`, `3782-822463-10005`). No card number starts with 0 (ISO/IEC 7812
/// issues none), but fixed-width fields pad one with zeros, which the Luhn check does not see:
/// so leading zeros are not counted, and `0004242424242424242` is a card number while a
/// zero-padded reference (`0000001234567897`) or a run of zeros is not. Nothing else is: an
/// order number of 13 digits that fails the Luhn check, a UUID, a nanosecond timestamp that
/// fails it, a 20-digit amount. Grouped runs are
/// read at every group boundary, so a card number written after other digit groups
/// (`ref 2024 4242 4242 4242 4242`) is still found; a contiguous run is only ever read whole.
///
/// Free text a client sends (order references, labels, merchant names, notes, metadata, names)
/// is refused with `check(_:field:)`, which names the field; texts PayPanel does not choose
/// (a processor's messages and ids, an input echoed in an error message) are passed through
/// `redacted(_:)` before they are shown or stored. The database does not repeat the rule: its
/// CHECK constraints cannot run the Luhn check (migration 0008 says why they were dropped).
package enum SensitiveDigits {
    /// How many digits a card number has.
    package static let cardNumberLengths = 13...19
    /// How many digits a group of a grouped card number has (`4242 4242 …`, Amex `3782 822463 10005`).
    static let groupLengths = 3...6
    /// The separators a grouped card number is written with; one kind per number.
    static let separators: [Unicode.Scalar] = [" ", "-"]

    /// What `redacted(_:)` puts where a card number was.
    package static let redaction = "[redacted]"

    /// True when `text` holds a card number by the rule above.
    package static func containsCardNumber(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        return !cardNumberRanges(in: scalars).isEmpty
    }

    /// `text` with every card number replaced by `[redacted]`; the rest (ids, UUIDs, times,
    /// other numbers) is left as it was.
    package static func redacted(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let ranges = cardNumberRanges(in: scalars)
        guard !ranges.isEmpty else { return text }
        var output = String.UnicodeScalarView()
        var position = 0
        for range in ranges {
            output.append(contentsOf: scalars[position..<range.lowerBound])
            output.append(contentsOf: redaction.unicodeScalars)
            position = range.upperBound
        }
        output.append(contentsOf: scalars[position...])
        return String(output)
    }

    /// Refuses `text` when it holds a card number, naming `field` (as the caller's API spells
    /// it: `order_reference`, `metadata[note]`, `--name`).
    package static func check(_ text: String, field: String) throws(CardNumberInTextError) {
        if containsCardNumber(text) { throw CardNumberInTextError(field: field) }
    }

    /// True when `digits` (ASCII digits only) are a card number: 13 to 19 of them after the
    /// leading zeros, and the whole passes the Luhn check.
    static func isCardNumber(_ digits: some BidirectionalCollection<Unicode.Scalar>) -> Bool {
        cardNumberLengths.contains(digits.drop(while: { $0 == "0" }).count) && passesLuhn(digits)
    }

    /// The Luhn check over ASCII digit scalars.
    static func passesLuhn(_ digits: some BidirectionalCollection<Unicode.Scalar>) -> Bool {
        var sum = 0
        for (index, scalar) in digits.reversed().enumerated() {
            var digit = Int(scalar.value) - 0x30
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }

    /// Where the card numbers in `scalars` are: sorted, merged ranges of scalar offsets.
    static func cardNumberRanges(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        let groups = digitGroups(in: scalars)
        guard !groups.isEmpty else { return [] }
        var found: [Range<Int>] = []
        // Contiguous: a whole run of digits.
        for group in groups where isCardNumber(scalars[group]) {
            found.append(group)
        }
        // Grouped: consecutive groups of 3 to 6 digits with one separator of one kind between each.
        for separator in separators {
            var chain: [Range<Int>] = []
            func readChain() {
                defer { chain.removeAll(keepingCapacity: true) }
                guard chain.count >= 2 else { return }
                for first in chain.indices {
                    // Leading zeros count neither in a card number's length nor in its Luhn
                    // sum: a start right after a group of zeros reads what the start before it
                    // read, so only the first group of a run of them starts. (Every start once
                    // read its run of zeros to the end: quadratic in a long run.)
                    if first > 0, scalars[chain[first - 1]].allSatisfy({ $0 == "0" }) { continue }
                    // The digits after the leading zeros; past 19 of them, no card number.
                    var digits: [Unicode.Scalar] = []
                    for last in first..<chain.count {
                        let group = scalars[chain[last]]
                        digits += digits.isEmpty ? group.drop(while: { $0 == "0" }) : group[...]
                        if digits.count > cardNumberLengths.upperBound { break }
                        if last > first, isCardNumber(digits) {
                            found.append(chain[first].lowerBound..<chain[last].upperBound)
                        }
                    }
                }
            }
            for group in groups {
                guard groupLengths.contains(group.count) else {
                    readChain()
                    continue
                }
                if let previous = chain.last,
                   !(previous.upperBound + 1 == group.lowerBound && scalars[previous.upperBound] == separator) {
                    readChain()
                }
                chain.append(group)
            }
            readChain()
        }
        return merged(found)
    }

    /// The maximal runs of ASCII digits in `scalars`.
    private static func digitGroups(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var start: Int?
        for (index, scalar) in scalars.enumerated() {
            let isDigit = scalar.value >= 0x30 && scalar.value <= 0x39
            if isDigit, start == nil { start = index }
            if !isDigit, let first = start {
                groups.append(first..<index)
                start = nil
            }
        }
        if let first = start { groups.append(first..<scalars.count) }
        return groups
    }

    /// `ranges` sorted, with overlapping or touching ones joined.
    private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

/// Free text that holds what can be a card number (`SensitiveDigits`): refused, with the field
/// named, before anything is stored. The text itself is never repeated.
public struct CardNumberInTextError: PayPanelError, Equatable {
    /// The field as the caller's interface spells it (`order_reference`, `metadata[note]`).
    public let field: String

    public init(field: String) {
        self.field = field
    }

    public var code: String { "card_number_in_text" }

    public var message: String {
        "\(field) holds what looks like a card number (13 to 19 digits that pass the Luhn check): card numbers go only in a payment method, never in \(field); remove it or write the reference another way"
    }

    /// The reason alone, for reports that name the field themselves (`ValidationReport`).
    public static let reason =
        "holds what looks like a card number (13 to 19 digits that pass the Luhn check): card numbers go only in a payment method; remove it or write the reference another way"
}
