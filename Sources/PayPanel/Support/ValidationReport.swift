/// Where in a JSON document a problem is: `paymentSummaryItems[1].amount`, or `$` for the
/// document itself.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    private enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    private var components: [Component] = []

    public static let root = FieldPath()

    public func appending(_ key: String) -> FieldPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    public func appending(index: Int) -> FieldPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    public var description: String {
        guard !components.isEmpty else { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

/// One problem found by a validator: the field it concerns and a plain reason.
public struct ValidationIssue: Sendable, Equatable, CustomStringConvertible, JSONRepresentable {
    public let path: String
    public let reason: String

    public init(path: FieldPath, reason: String) {
        self.path = path.description
        self.reason = reason
    }

    /// `<path>: <reason>`, the form the CLI prints after `error:` or `warning:`.
    public var description: String { "\(path): \(reason)" }

    public var json: JSONValue { ["path": .string(path), "reason": .string(reason)] }
}

/// Everything a validator found: all errors (not just the first) and the warnings.
public struct ValidationReport: Sendable, Equatable, JSONRepresentable {
    public private(set) var errors: [ValidationIssue] = []
    public private(set) var warnings: [ValidationIssue] = []

    public init() {}

    public var isValid: Bool { errors.isEmpty }

    public mutating func error(_ path: FieldPath, _ reason: String) {
        errors.append(ValidationIssue(path: path, reason: reason))
    }

    public mutating func warning(_ path: FieldPath, _ reason: String) {
        warnings.append(ValidationIssue(path: path, reason: reason))
    }

    public mutating func merge(_ other: ValidationReport) {
        errors += other.errors
        warnings += other.warnings
    }

    /// `{"valid", "errors": [{"path", "reason"}], "warnings": [...]}`.
    public var json: JSONValue {
        [
            "valid": .bool(isValid),
            "errors": .array(errors.map(\.json)),
            "warnings": .array(warnings.map(\.json)),
        ]
    }
}

/// Reads fields out of a JSON object while recording every type problem in a report, so a
/// validator can keep going and report all violations at once.
package struct JSONFieldReader {
    package var report = ValidationReport()

    package init() {}

    /// The value at `path` converted by `extract`, or nil after recording why not: "is required"
    /// when absent or null (and `required`), "must be <kind>, not <type>" when `extract` fails.
    package mutating func typed<T>(
        _ value: JSONValue?, at path: FieldPath, required: Bool, kind: String, _ extract: (JSONValue) -> T?
    ) -> T? {
        guard let value, value != .null else {
            if required { report.error(path, "is required") }
            return nil
        }
        guard let typed = extract(value) else {
            report.error(path, "must be \(kind), not \(value.typeDescription)")
            return nil
        }
        return typed
    }

    /// The object at `path`, or nil after recording an error.
    package mutating func object(_ value: JSONValue?, at path: FieldPath, required: Bool = true) -> JSONObject? {
        typed(value, at: path, required: required, kind: "an object") { $0.objectValue }
    }

    /// The array at `path`, or nil after recording an error.
    package mutating func array(_ value: JSONValue?, at path: FieldPath, required: Bool = true) -> [JSONValue]? {
        typed(value, at: path, required: required, kind: "an array") { $0.arrayValue }
    }

    /// The string at `path`, or nil after recording an error. `nonEmpty` also rejects "".
    package mutating func string(
        _ value: JSONValue?, at path: FieldPath, required: Bool = true, nonEmpty: Bool = false
    ) -> String? {
        guard let string = typed(value, at: path, required: required, kind: "a string", { $0.stringValue }) else {
            return nil
        }
        if nonEmpty && string.trimmingWhitespace().isEmpty {
            report.error(path, "must not be empty")
            return nil
        }
        return string
    }

    /// The string at `path` as `string` reads it, refused (nil, after recording why) when it
    /// holds a card number (`SensitiveDigits`) or is not printable on one line
    /// (`PrintableText`): free text someone typed, shown on a panel or a sheet.
    package mutating func freeText(
        _ value: JSONValue?, at path: FieldPath, required: Bool = true, nonEmpty: Bool = false
    ) -> String? {
        guard let text = string(value, at: path, required: required, nonEmpty: nonEmpty) else { return nil }
        guard PrintableText.isPrintableLine(text) else {
            report.error(path, PrintableText.reason)
            return nil
        }
        guard !SensitiveDigits.containsCardNumber(text) else {
            report.error(path, CardNumberInTextError.reason)
            return nil
        }
        return text
    }

    /// The integer at `path` (a JSON number that equals an integer fitting in Int64: `5`, `5.0`),
    /// or nil after an error.
    package mutating func integer(_ value: JSONValue?, at path: FieldPath, required: Bool = true) -> Int64? {
        guard let number = typed(value, at: path, required: required, kind: "an integer", { $0.numberValue }) else {
            return nil
        }
        guard let integer = number.integralValue else {
            report.error(path, "must be a whole number that fits in 64 bits, not \(number.messageText)")
            return nil
        }
        return integer
    }

    /// The boolean at `path`, or nil after recording an error.
    package mutating func bool(_ value: JSONValue?, at path: FieldPath, required: Bool = true) -> Bool? {
        typed(value, at: path, required: required, kind: "true or false") { $0.boolValue }
    }

    /// Warns about members the format does not define (they are ignored, not an error). Names
    /// compare by their UTF-8 bytes, as lookups do: a known name spelled with a canonically
    /// equivalent character (a Kelvin sign for "K") is unknown, since it is never read.
    package mutating func warnUnknownKeys(_ object: JSONObject, known: Set<String>, at path: FieldPath) {
        for key in object.keys where !JSONMemberName.isOne(of: known, key) {
            report.warning(path.appending(key), "unknown key, ignored")
        }
    }
}

extension String {
    /// The string without leading and trailing Unicode white space.
    package func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
