/// A merchant's own key-value pairs on a payment intent or a checkout, with Stripe's rules:
/// at most 50 keys; a key is 1 to 40 characters without `[` or `]`; a value is a string of at
/// most 500 characters. PayPanel never reads them; they come back on the object, in its events,
/// and `GET /v1/payment_intents?metadata[key]=value` finds intents by them.
///
/// Keys and values are free text: a control character (tab, line feed and carriage return
/// aside, in values) or what looks like a card number (`SensitiveDigits`) is refused, naming
/// `metadata[key]`. Characters are counted as Unicode scalars, as the databases count them.
public struct Metadata: Sendable, Equatable {
    /// The pairs. Order carries no meaning: JSON and comparisons use the keys' order.
    public private(set) var values: [String: String]

    public static let maximumKeys = 50
    public static let maximumKeyLength = 40
    public static let maximumValueLength = 500

    /// No pairs.
    public static let empty = Metadata(checked: [:])

    private init(checked values: [String: String]) {
        self.values = values
    }

    /// Metadata of `values`, checked; throws the first problem, naming its field.
    public init(_ values: [String: String]) throws(MetadataError) {
        for key in values.keys.sorted() {
            if let problem = Self.problem(key: key, value: values[key] ?? "") { throw problem }
        }
        guard values.count <= Self.maximumKeys else { throw Self.tooMany(values.count) }
        self.values = values
    }

    public var isEmpty: Bool { values.isEmpty }

    /// The pairs in the keys' order.
    public var sortedPairs: [(key: String, value: String)] {
        values.keys.sorted().map { ($0, values[$0] ?? "") }
    }

    /// `{"key": "value", …}`, keys in order.
    public var json: JSONValue {
        .orderedObject(sortedPairs.map { ($0.key, JSONValue.string($0.value)) })
    }

    /// The metadata a JSON object (as stored, or as a snapshot holds it) describes; nil when
    /// it is not an object of strings within the limits.
    public init?(json: JSONValue) {
        guard case .object(let object) = json else { return nil }
        var values: [String: String] = [:]
        for (key, value) in object.members {
            guard let text = value.stringValue else { return nil }
            values[key] = text
        }
        guard let checked = try? Metadata(values) else { return nil }
        self = checked
    }

    /// The stored form: compact JSON, keys in order.
    public var storedText: String { JSONWriter.string(json) }

    /// The metadata stored as `text` (`storedText`); nil when it does not read.
    public init?(storedText text: String) {
        if text == "{}" {
            self = .empty
            return
        }
        guard let value = try? JSONParser().parse(Array(text.utf8)), let metadata = Metadata(json: value) else { return nil }
        self = metadata
    }

    // MARK: - Requests

    /// What a request asks to change: a value per key, `nil` to remove the key (Stripe's `""`),
    /// or `clearsAll` for `"metadata": ""`.
    public struct Change: Sendable, Equatable {
        public var clearsAll = false
        public var updates: [String: String?] = [:]

        public init(clearsAll: Bool = false, updates: [String: String?] = [:]) {
            self.clearsAll = clearsAll
            self.updates = updates
        }
    }

    /// Reads the request's `metadata` member: an object of strings (a value of `""` removes its
    /// key), or `""` to remove every key. Every problem is reported, each naming its field
    /// (`metadata`, `metadata[key]`), and nil returned when there is one.
    public static func change(from value: JSONValue, field: String = "metadata") -> (change: Change?, problems: [MetadataError]) {
        if value.stringValue == "" { return (Change(clearsAll: true), []) }
        guard case .object(let object) = value else {
            return (nil, [MetadataError(field: field, reason: "must be an object of string values, such as {\"order\": \"42\"}, not \(value.typeDescription)")])
        }
        var change = Change()
        var problems: [MetadataError] = []
        for (key, member) in object.members {
            let keyField = fieldName(field, key)
            guard let text = member.stringValue else {
                problems.append(MetadataError(field: keyField, reason: "must be a string (of at most \(maximumValueLength) characters), not \(member.typeDescription)"))
                continue
            }
            if let problem = Self.problem(key: key, value: text, field: field) {
                problems.append(problem)
                continue
            }
            change.updates[key] = text.isEmpty ? .some(nil) : .some(text)
        }
        return (problems.isEmpty ? change : nil, problems)
    }

    /// This metadata with `change` applied (Stripe's update: listed keys set or removed, the
    /// others kept); throws when the result has more than 50 keys.
    public func applying(_ change: Change) throws(MetadataError) -> Metadata {
        var values = change.clearsAll ? [:] : self.values
        for (key, value) in change.updates {
            values[key] = value
        }
        guard values.count <= Self.maximumKeys else { throw Self.tooMany(values.count) }
        return Metadata(checked: values)
    }

    /// True when every pair of `filter` is in this metadata (the list filter).
    public func contains(_ filter: [String: String]) -> Bool {
        filter.allSatisfy { values[$0.key] == $0.value }
    }

    // MARK: - Rules

    private static func problem(key: String, value: String, field: String = "metadata") -> MetadataError? {
        let keyField = fieldName(field, key)
        let keyLength = key.unicodeScalars.count
        guard (1...maximumKeyLength).contains(keyLength) else {
            return MetadataError(field: keyField, reason: "a key is 1 to \(maximumKeyLength) characters, not \(keyLength)")
        }
        guard !key.contains("[") && !key.contains("]") else {
            return MetadataError(field: keyField, reason: "a key may not contain [ or ]")
        }
        guard !key.unicodeScalars.contains(where: isControl) else {
            return MetadataError(field: keyField, reason: "a key may not contain a control character")
        }
        let valueLength = value.unicodeScalars.count
        guard valueLength <= maximumValueLength else {
            return MetadataError(field: keyField, reason: "a value is at most \(maximumValueLength) characters, not \(valueLength)")
        }
        guard !value.unicodeScalars.contains(where: { isControl($0) && !["\t", "\n", "\r"].contains($0) }) else {
            return MetadataError(field: keyField, reason: "a value may not contain a control character other than tab and line breaks")
        }
        if SensitiveDigits.containsCardNumber(key) || SensitiveDigits.containsCardNumber(value) {
            return MetadataError(field: keyField, reason: CardNumberInTextError.reason, code: CardNumberInTextError(field: keyField).code)
        }
        return nil
    }

    /// `metadata[key]`, the way requests and the list filter write it; a key that cannot be
    /// shown so (too long, a control character, a bracket) is quoted, cut and redacted.
    static func fieldName(_ field: String, _ key: String) -> String {
        let plain = key.unicodeScalars.count <= maximumKeyLength && !key.contains("[") && !key.contains("]")
            && !key.unicodeScalars.contains(where: isControl) && !key.contains("\"")
        return "\(field)[\(plain ? SensitiveDigits.redacted(key) : JSONWriter.quoted(key, limit: maximumKeyLength))]"
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func tooMany(_ count: Int) -> MetadataError {
        MetadataError(field: "metadata", reason: "holds at most \(maximumKeys) keys, not \(count): remove some (a value of \"\" removes its key)")
    }
}

/// Metadata that breaks a rule, naming the field (`metadata`, `metadata[key]`).
public struct MetadataError: PayPanelError, Equatable {
    public let field: String
    public let reason: String
    public let code: String

    public init(field: String, reason: String, code: String = "invalid_metadata") {
        self.field = field
        self.reason = reason
        self.code = code
    }

    public var message: String { "\(field) \(reason)" }
}
