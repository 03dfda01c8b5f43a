/// Header fields in the order received or added, with case-insensitive name lookup
/// (field names are case-insensitive, RFC 9110 §5.1). Repeated names are kept as repeated
/// fields rather than merged, so framing checks can see duplicates.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field line: a name and its value with surrounding whitespace removed.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String

        /// A field; names and values are validated when a response is written, not here.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// No fields.
    public init() {
        fields = []
    }

    /// The given fields, in order.
    public init(_ fields: [Field]) {
        self.fields = fields
    }

    /// Fields from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The number of field lines.
    public var count: Int { fields.count }

    /// The first value for `name`, ignoring case; nil when absent.
    public subscript(name: String) -> String? {
        fields.first { HTTPHeaders.namesMatch($0.name, name) }?.value
    }

    /// Every value for `name`, ignoring case, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPHeaders.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether any field is named `name`, ignoring case.
    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPHeaders.namesMatch($0.name, name) }
    }

    /// The comma-separated elements of every `name` field, trimmed and lower-cased, empty
    /// elements dropped (RFC 9110 §5.6.1) — for token lists like `Connection`.
    func lowercasedListElements(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingHTTPWhitespace().lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` and appends one with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name`, ignoring case.
    public mutating func remove(name: String) {
        fields.removeAll { HTTPHeaders.namesMatch($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison; header names are tokens, so ASCII is all there is.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { HTTPGrammar.asciiLowercase($0) == HTTPGrammar.asciiLowercase($1) }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
