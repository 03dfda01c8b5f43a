import PayPanel

/// The types of Stripe's search fields (docs.stripe.com/search, "Field types"): each says which
/// operators a field takes.
enum SearchFieldType: String, Sendable {
    /// Exact match only, case-insensitive (`currency`, `status`, `metadata[...]`).
    case token
    /// Exact match (the words of the value, in order) and `~` substring, case-insensitive.
    case string
    /// Exact match and `>`, `<`, `>=`, `<=` on whole numbers (`amount`, `created`).
    case numeric

    var operators: [SearchClause.Operator] {
        switch self {
        case .token: [.exact]
        case .string: [.exact, .substring]
        case .numeric: [.exact, .greaterThan, .lessThan, .greaterThanOrEqual, .lessThanOrEqual]
        }
    }
}

/// One row of an object's search field table.
struct SearchField: Sendable {
    let name: String
    let type: SearchFieldType
    /// True for a field searched by key, `metadata['key']`.
    var keyed = false
}

/// A field's value on one object, as the search compares it.
enum SearchValue: Equatable, Sendable {
    case number(Int64)
    case text(String)
}

/// An object kind the search language can query: its field table and each field's value.
/// PaymentIntents implement it; Charges (once the mock keeps them) add their own table.
protocol SearchableObject: Sendable {
    /// The kind's name in messages ("PaymentIntents").
    static var searchName: String { get }
    static var searchFields: [SearchField] { get }
    /// The value of `field` (a name from `searchFields`, with its key when keyed); nil when the
    /// object has none, which `field:null` matches.
    func searchValue(for field: SearchClause.Field) -> SearchValue?
}

/// A parsed query checked against an object kind's field table, ready to test objects.
///
/// Everything Stripe would refuse for the kind is refused here, naming the clause's position:
/// an unknown field (listing the kind's fields), an operator the field's type does not take
/// (`~` on a token, `>` on a string), a value that is not a whole number on a numeric field,
/// a key on a field without one or none on `metadata`.
struct SearchFilter<Object: SearchableObject>: Sendable {
    /// One clause, resolved: what to read and how to test it.
    struct Condition: Sendable {
        enum Test: Sendable {
            case isNull
            /// Token equality; the wanted text is lowercased, as every compared value is.
            case equals(String)
            /// String exact match: these lowercased words, in order, within the value's words.
            case containsWords([String])
            case containsSubstring(String)
            case compare(SearchClause.Operator, Int64)
        }

        let field: SearchClause.Field
        let negated: Bool
        let test: Test
    }

    let connective: SearchQuery.Connective
    let conditions: [Condition]

    init(_ query: SearchQuery) throws(StripeError) {
        connective = query.connective
        var conditions: [Condition] = []
        for clause in query.clauses { conditions.append(try Self.resolve(clause)) }
        self.conditions = conditions
    }

    /// Whether `object` matches: every condition (AND) or any (OR).
    func matches(_ object: Object) -> Bool {
        switch connective {
        case .and: conditions.allSatisfy { $0.holds(for: object) }
        case .or: conditions.contains { $0.holds(for: object) }
        }
    }

    /// The key and (lowercased) value of each positive exact `metadata[...]` clause of an AND
    /// query: every match carries all these pairs, so an index of the pairs narrows the
    /// objects to read. Empty for an OR query, where no single clause must hold.
    var requiredMetadataPairs: [(key: String, value: String)] {
        guard connective == .and else { return [] }
        return conditions.compactMap { condition in
            guard condition.field.name == "metadata", let key = condition.field.key, !condition.negated,
                  case .equals(let value) = condition.test else { return nil }
            return (key, value)
        }
    }

    static func resolve(_ clause: SearchClause) throws(StripeError) -> Condition {
        let shown = SearchQueryParser.shown(clause.field.written)
        guard let field = Object.searchFields.first(where: { $0.name == clause.field.name }) else {
            // Field names are matched as the API spells them (lower case); Stripe documents
            // AND, OR and null as case-insensitive, and says nothing of field names.
            if let near = Object.searchFields.first(where: { $0.name == clause.field.name.lowercased() }) {
                throw SearchQueryParser.refusal(
                    at: clause.fieldPosition, "\(Object.searchName) have no field '\(shown)'", "Field names are lower case, as in the API: write \(near.name).")
            }
            let names = Object.searchFields.map { $0.keyed ? "\($0.name)['key']" : $0.name }
            throw SearchQueryParser.refusal(
                at: clause.fieldPosition, "\(Object.searchName) cannot be searched by '\(shown)'",
                "Use one of their fields: \(names.joined(separator: ", ")).")
        }
        if field.keyed, clause.field.key == nil {
            throw SearchQueryParser.refusal(at: clause.fieldPosition, "\(field.name) is searched by key", "Write \(field.name)['key']:'value'.")
        }
        if !field.keyed, clause.field.key != nil {
            throw SearchQueryParser.refusal(at: clause.fieldPosition, "\(field.name) takes no [key]", "Write \(field.name)\(clause.op.rawValue)value without the brackets.")
        }
        let test = try test(for: clause, field: field)
        return Condition(field: clause.field, negated: clause.negated, test: test)
    }

    private static func test(for clause: SearchClause, field: SearchField) throws(StripeError) -> Condition.Test {
        let shown = SearchQueryParser.shown(clause.field.written)
        guard field.type.operators.contains(clause.op) else {
            let operators = field.type.operators.map(\.rawValue).joined(separator: " ")
            throw SearchQueryParser.refusal(
                at: clause.valuePosition - clause.op.rawValue.unicodeScalars.count,
                "\(clause.op.rawValue) does not apply to \(shown), a \(field.type.rawValue) field of \(Object.searchName), which takes \(operators)",
                field.type == .numeric
                    ? "Write \(shown):1000, or compare with > < >= <=, such as \(shown)>1000."
                    : clause.op == .substring
                        ? "Match the whole value with \(shown):'value' (case does not matter)."
                        : "Compare numbers only on numeric fields, such as amount>1000; match \(shown) with \(shown):'value'.")
        }
        switch (clause.value, field.type) {
        case (.null, _):
            return .isNull
        case (.number(let digits), .numeric), (.string(let digits), .numeric):
            guard let number = Int64(digits), digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
                throw SearchQueryParser.refusal(
                    at: clause.valuePosition, "\(shown) is numeric, and '\(SearchQueryParser.shown(digits))' is not a whole number from 0 to \(Int64.max)",
                    "Compare with a whole number, such as \(shown)\(clause.op.rawValue)1000.")
            }
            return .compare(clause.op, number)
        case (.number(let text), _), (.string(let text), _):
            let wanted = text.lowercased()
            switch (field.type, clause.op) {
            case (.string, .substring): return .containsSubstring(wanted)
            case (.string, _): return .containsWords(Self.words(wanted))
            default: return .equals(wanted)
            }
        }
    }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }
}

extension SearchFilter.Condition {
    func holds(for object: Object) -> Bool {
        let value = object.searchValue(for: field)
        let result: Bool
        switch (test, value) {
        case (.isNull, _):
            result = value == nil
        case (_, nil):
            result = false
        case (.equals(let wanted), .text(let text)?):
            result = text.lowercased() == wanted
        case (.equals(let wanted), .number(let number)?):
            result = String(number) == wanted
        case (.containsWords(let wanted), let value?):
            // Stripe: name:"one two three" matches "one two three four" — the words, in order.
            let words = SearchFilter.words(value.comparedText)
            if wanted.isEmpty {
                result = words.isEmpty
            } else if words.count < wanted.count {
                result = false
            } else {
                result = (0...(words.count - wanted.count)).contains { Array(words[$0..<($0 + wanted.count)]) == wanted }
            }
        case (.containsSubstring(let wanted), let value?):
            result = value.comparedText.contains(wanted)
        case (.compare(let op, let bound), .number(let number)?):
            switch op {
            case .exact: result = number == bound
            case .greaterThan: result = number > bound
            case .lessThan: result = number < bound
            case .greaterThanOrEqual: result = number >= bound
            case .lessThanOrEqual: result = number <= bound
            case .substring: result = false  // `resolve` never pairs ~ with a number
            }
        case (.compare, .text?):
            result = false
        }
        return negated ? !result : result
    }
}

extension SearchValue {
    /// The value as text compares it: lowercased.
    var comparedText: String {
        switch self {
        case .number(let number): String(number)
        case .text(let text): text.lowercased()
        }
    }
}

extension SearchQuery {
    /// One page of a search's `matches` (newest first) as Stripe answers it: a `search_result`
    /// with `next_page` when more follow. The `page` token names the last object of the page
    /// before; results continue after it (the SDKs' `auto_paging_iter` follows `next_page`, and
    /// loops on the first page forever when `has_more` is true without one).
    static func resultPage<Object>(
        _ matches: [Object], id: (Object) -> String, query: Parameters, limit: Int, url: String, render: (Object) -> JSONValue
    ) throws(StripeError) -> JSONValue {
        var rest = matches[...]
        if let page = try query.string("page") {
            guard page.hasPrefix(pagePrefix), let index = rest.firstIndex(where: { id($0) == page.dropFirst(pagePrefix.count) }) else {
                throw .invalidRequest("page is not a next_page token of this search: pass the next_page of the previous result unchanged.", param: "page")
            }
            rest = rest[(index + 1)...]
        }
        let shown = rest.prefix(limit)
        let hasMore = rest.count > limit
        return .orderedObject([
            ("object", "search_result"), ("data", .array(shown.map(render))), ("has_more", .bool(hasMore)),
            ("next_page", hasMore ? .string(pagePrefix + (shown.last.map(id) ?? "")) : .null), ("url", .string(url)),
        ])
    }
}
