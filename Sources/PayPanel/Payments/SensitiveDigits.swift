/// Keeps card numbers out of stored text. Processor messages, references and reasons are
/// stored and shown; a processor (or a person) might put a card number in one, so runs of 12
/// or more digits — also when grouped by spaces or dashes — are replaced before anything is
/// written. The database repeats the rule with CHECK constraints on its free-text columns.
public enum SensitiveDigits {
    /// The shortest digit run that is treated as a possible card number.
    public static let minimumRun = 12

    /// `text` with every run of `minimumRun` or more digits (single spaces or dashes between
    /// them allowed) replaced by `[redacted]`.
    public static func redacted(_ text: String) -> String {
        guard containsLongDigitRun(text) else { return text }
        var output = ""
        var pending = ""  // a candidate run: digits and single separators
        var digitCount = 0
        func flush() {
            if digitCount >= minimumRun {
                // Keep a separator that ended the run outside the redaction.
                var trailing = ""
                while let last = pending.last, last == " " || last == "-" {
                    trailing = String(last) + trailing
                    pending.removeLast()
                }
                output += "[redacted]" + trailing
            } else {
                output += pending
            }
            pending = ""
            digitCount = 0
        }
        for character in text {
            if character.isASCII && character.isNumber {
                pending.append(character)
                digitCount += 1
            } else if (character == " " || character == "-") && digitCount > 0 && pending.last.map({ $0.isNumber }) == true {
                pending.append(character)
            } else {
                flush()
                output.append(character)
            }
        }
        flush()
        return output
    }

    /// True when `text` holds a run of `minimumRun` or more digits (possibly grouped).
    public static func containsLongDigitRun(_ text: String) -> Bool {
        var digits = 0
        var previousWasSeparator = false
        for character in text {
            if character.isASCII && character.isNumber {
                digits += 1
                previousWasSeparator = false
                if digits >= minimumRun { return true }
            } else if (character == " " || character == "-") && digits > 0 && !previousWasSeparator {
                previousWasSeparator = true
            } else {
                digits = 0
                previousWasSeparator = false
            }
        }
        return false
    }
}
