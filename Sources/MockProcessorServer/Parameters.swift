import Foundation
import PayPanel

/// Typed reads of a request's parameter tree, each refusal naming the parameter (Stripe's
/// `param`, bracket form: `payment_method_data[card][number]`).
struct Parameters: Sendable {
    let root: FormValue

    init(_ root: FormValue) {
        self.root = root
    }

    func value(_ path: [String]) -> FormValue? {
        var current: FormValue? = root
        for key in path { current = current?[key] }
        return current
    }

    static func name(_ path: [String]) -> String {
        path.dropFirst().reduce(path.first ?? "") { "\($0)[\($1)]" }
    }

    func string(_ path: String...) throws(StripeError) -> String? {
        guard let value = value(path) else { return nil }
        guard case .string(let text) = value else {
            throw .invalidRequest("\(Self.name(path)) must be a value, not \(value.kindDescription).", param: Self.name(path))
        }
        return text
    }

    /// A whole number in `range`; Stripe's amounts are integers of minor units.
    func integer(_ path: String..., in range: ClosedRange<Int64>) throws(StripeError) -> Int64? {
        let name = Self.name(path)
        guard let value = value(path) else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= 19,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int64(text)
        else {
            // Stripe's code and words ("Invalid integer: abc"); the client's text is shown
            // shortened and with any card-like digits masked.
            let shown: String = if case .string(let text) = value { JSONWriter.quoted(SensitiveDigits.redacted(text), limit: 40) } else { value.kindDescription }
            throw .invalidRequest(
                "Invalid integer: \(shown). \(name) must be a whole number without sign or fraction.", param: name, code: "parameter_invalid_integer")
        }
        guard range.contains(number) else {
            throw .invalidRequest(
                "\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(number).", param: name, code: "parameter_invalid_integer")
        }
        return number
    }

    func boolean(_ path: String...) throws(StripeError) -> Bool? {
        let name = Self.name(path)
        guard let value = value(path) else { return nil }
        guard case .string(let text) = value, text == "true" || text == "false" else {
            throw .invalidRequest("Invalid boolean: \(name) must be true or false.", param: name)
        }
        return text == "true"
    }

    /// A string-to-string hash such as `metadata`: at most 50 keys of 40 characters and values
    /// of 500, as at Stripe.
    func metadata(_ key: String) throws(StripeError) -> [(String, String)]? {
        guard let value = value([key]) else { return nil }
        if case .string(let text) = value, text.isEmpty { return [] }
        guard case .object(let members) = value else {
            throw .invalidRequest("\(key) must be a hash (\(key)[name]=value).", param: key)
        }
        guard members.count <= 50 else { throw .invalidRequest("\(key) can have at most 50 keys.", param: key) }
        var pairs: [(String, String)] = []
        for member in members {
            let name = "\(key)[\(member.key)]"
            guard case .string(let text) = member.value else { throw .invalidRequest("\(name) must be a value.", param: name) }
            guard member.key.count <= 40 else { throw .invalidRequest("\(key) keys are at most 40 characters.", param: name) }
            guard text.count <= 500 else { throw .invalidRequest("\(name) is longer than 500 characters.", param: name) }
            pairs.append((member.key, text))
        }
        return pairs
    }
}
