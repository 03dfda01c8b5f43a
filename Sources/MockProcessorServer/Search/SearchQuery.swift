import PayPanel

/// A query of Stripe's Search Query Language, parsed: clauses joined all by AND or all by OR.
///
/// The grammar (docs/mock-processor.md, "Search"), with positions counted in Unicode scalars
/// from 0 — what Python's `query[n]` and JavaScript's code-point indexing point at:
///
///     query     = spaces? clause (joiner clause)* spaces?          at most 10 clauses
///     joiner    = spaces ((AND | OR) spaces)?                      a bare space is AND
///     clause    = "-"? field operator value                        no spaces inside
///     field     = name ("[" quoted "]")?                           metadata['key']
///     name      = letter-or-_ (letter | digit | _ | .)*
///     operator  = ":" | "~" | ">=" | "<=" | ">" | "<"
///     value     = quoted | digits | null                           null: any case
///     quoted    = "'" … "'" | '"' … '"'                            \' \" \\ escape
///
/// `AND`, `OR` and `null` are read in any case, as Stripe documents. Which fields exist and
/// which operators and values each takes is not the grammar's business: `SearchFilter` checks
/// a parsed query against an object's field table.
struct SearchQuery: Equatable, Sendable {
    enum Connective: String, Equatable, Sendable {
        case and = "AND"
        case or = "OR"
    }

    /// How the clauses combine; a single clause is an AND of one.
    let connective: Connective
    let clauses: [SearchClause]

    /// Stripe's bounds: a query's length (the SDKs' parameter limit is larger, this mock keeps
    /// the work of one query small) and its clauses.
    static let maximumLength = 1000
    static let maximumClauses = 10

    /// How a `next_page` token starts; the rest is the last intent id of the page.
    static let pagePrefix = "pgtok_"

    /// Parses `text`, or refuses it with a 400 on `query` naming the position, what was wrong
    /// and what to write instead.
    static func parse(_ text: String) throws(StripeError) -> SearchQuery {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= maximumLength else {
            throw SearchQueryParser.refusal(
                at: maximumLength, "the query is \(scalars.count) characters long, more than \(maximumLength)",
                "Shorten it: a search takes at most \(maximumLength) characters and \(maximumClauses) clauses.")
        }
        var parser = SearchQueryParser(scalars: scalars)
        return try parser.parseQuery()
    }
}

/// One `field operator value` clause, perhaps negated with a leading `-`.
struct SearchClause: Equatable, Sendable {
    /// A field by name, with the key in brackets for `metadata['key']`.
    struct Field: Equatable, Hashable, Sendable {
        let name: String
        let key: String?

        init(_ name: String, key: String? = nil) {
            self.name = name
            self.key = key
        }

        /// As written in a query (the key in single quotes), for messages.
        var written: String {
            guard let key else { return name }
            return "\(name)['\(key)']"
        }
    }

    enum Operator: String, Equatable, Sendable, CaseIterable {
        case exact = ":"
        case substring = "~"
        case greaterThan = ">"
        case lessThan = "<"
        case greaterThanOrEqual = ">="
        case lessThanOrEqual = "<="
    }

    enum Value: Equatable, Sendable {
        /// A quoted value, unescaped.
        case string(String)
        /// An unquoted run of digits, kept as written: a token field compares it as text, where
        /// leading zeros count.
        case number(String)
        /// `null`: the field has no value (negated: it has one).
        case null
    }

    let negated: Bool
    let field: Field
    let op: Operator
    let value: Value
    /// Where the field name and the value start (0-based, in Unicode scalars), for the refusals
    /// made after parsing, when the field table is applied.
    let fieldPosition: Int
    let valuePosition: Int
}

extension SearchClause {
    /// A clause with the positions it would have in a query of its own; for building clauses
    /// in tests and comparing parsed ones without their positions.
    func withoutPositions() -> SearchClause {
        SearchClause(negated: negated, field: field, op: op, value: value, fieldPosition: 0, valuePosition: 0)
    }
}

/// The recursive-descent parser behind `SearchQuery.parse`: one pass over the scalars, each
/// rule a method, every refusal naming the position where reading stopped.
struct SearchQueryParser {
    let scalars: [Unicode.Scalar]
    private(set) var position = 0

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    /// The 400 every refusal of a query is: `param` is `query`, the message says where (0-based,
    /// in characters), what and how to fix it. Pieces of the query it quotes are passed through
    /// `shown`, so no card number typed into a query comes back.
    static func refusal(at position: Int, _ problem: String, _ fix: String) -> StripeError {
        .invalidRequest("Invalid search query at character \(position) (counting from 0): \(problem). \(fix)", param: "query")
    }

    /// A piece of the client's query for a message: card numbers redacted, then cut short.
    static func shown(_ text: String) -> String {
        let redacted = SensitiveDigits.redacted(text)
        return redacted.count > 40 ? redacted.prefix(40) + "…" : redacted
    }

    /// What stands at `start`, for a message: the end, a space, or the word there.
    func found(at start: Int) -> String {
        guard start < scalars.count else { return "the query ends" }
        if Self.isSpace(scalars[start]) { return "a space is there" }
        return "'\(Self.shown(word(at: start)))' is there"
    }

    /// A joiner as a message names it (nil `written`: a bare space).
    static func describe(_ connective: SearchQuery.Connective, written: String?) -> String {
        guard written != nil else { return "a space between clauses (an implicit AND)" }
        return connective.rawValue
    }

    mutating func parseQuery() throws(StripeError) -> SearchQuery {
        skipSpaces()
        guard !atEnd else {
            throw Self.refusal(at: position, "the query is empty", "Write at least one clause, such as status:'succeeded' or amount>1000.")
        }
        var clauses = [try parseClause()]
        // The first joiner fixes the connective; where it was and how it was written, for the
        // refusal of a query that mixes AND and OR (nil `written`: a bare space).
        var connective: (kind: SearchQuery.Connective, position: Int, written: String?)?
        while true {
            let clauseEnd = position
            let spaced = skipSpaces()
            if atEnd { break }
            guard spaced else {
                throw Self.refusal(
                    at: clauseEnd, "the clause ends here, but '\(Self.shown(word(at: clauseEnd)))' follows it without a space",
                    "Quote string values (status:'succeeded'), and put a space, AND or OR between clauses.")
            }
            let joinerPosition = position
            var joiner: (kind: SearchQuery.Connective, written: String?) = (.and, nil)
            if let keyword = keyword(at: position) {
                joiner = (keyword.kind, keyword.text)
                position += keyword.text.unicodeScalars.count
                guard skipSpaces(), !atEnd else {
                    throw Self.refusal(at: joinerPosition, "\(keyword.text) has no clause after it", "Write a clause after \(keyword.text), or remove it.")
                }
            }
            if let connective, connective.kind != joiner.kind {
                throw Self.refusal(
                    at: joinerPosition,
                    "\(Self.describe(joiner.kind, written: joiner.written)) cannot follow \(Self.describe(connective.kind, written: connective.written)) at character \(connective.position): Stripe does not mix AND and OR in one query, and has no parentheses",
                    "Join every clause with AND (or spaces), or every clause with OR; for (a AND b) OR c, run one search per OR group.")
            }
            if connective == nil { connective = (joiner.kind, joinerPosition, joiner.written) }
            guard clauses.count < SearchQuery.maximumClauses else {
                throw Self.refusal(
                    at: position, "a query has at most \(SearchQuery.maximumClauses) clauses, and clause \(clauses.count + 1) starts here",
                    "Use fewer clauses, or run several searches and combine their results.")
            }
            clauses.append(try parseClause())
        }
        return SearchQuery(connective: connective?.kind ?? .and, clauses: clauses)
    }

    /// `-`? field operator value.
    mutating func parseClause() throws(StripeError) -> SearchClause {
        if let keyword = keyword(at: position) {
            throw Self.refusal(at: position, "\(keyword.text) joins two clauses, but no clause stands before it", "Write a clause before \(keyword.text), or remove it.")
        }
        var negated = false
        if peek == "-" {
            negated = true
            position += 1
        }
        let fieldPosition = position
        let field = try parseField(negated: negated)
        let op = try parseOperator(after: field)
        let valuePosition = position
        let value = try parseValue(for: op, field: field)
        return SearchClause(negated: negated, field: field, op: op, value: value, fieldPosition: fieldPosition, valuePosition: valuePosition)
    }

    mutating func parseField(negated: Bool) throws(StripeError) -> SearchClause.Field {
        let start = position
        guard let first = peek, Self.isNameStart(first) else {
            let lead = negated ? "- must be followed by a field name" : "a clause must start with a field name (or with - to negate it)"
            throw Self.refusal(at: position, "\(lead), but \(found(at: position))", "Write field:value, such as status:'succeeded', metadata['order_id']:'o-1' or amount>1000.")
        }
        while let scalar = peek, Self.isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "." {
            position += 1
        }
        let name = String(String.UnicodeScalarView(scalars[start..<position]))
        guard peek == "[" else { return SearchClause.Field(name) }
        position += 1
        let shownName = Self.shown(name)
        guard let quote = peek, quote == "'" || quote == "\"" else {
            throw Self.refusal(at: position, "the key in \(shownName)[...] must be quoted, but \(found(at: position))", "Write \(shownName)['key'] or \(shownName)[\"key\"].")
        }
        let key = try parseQuoted()
        guard peek == "]" else {
            throw Self.refusal(at: position, "\(shownName)['\(Self.shown(key))' is not closed with ], and \(found(at: position))", "Write \(shownName)['key'] with ] right after the quoted key.")
        }
        position += 1
        return SearchClause.Field(name, key: key)
    }

    mutating func parseOperator(after field: SearchClause.Field) throws(StripeError) -> SearchClause.Operator {
        // Longest first: >= before >.
        for op in [SearchClause.Operator.greaterThanOrEqual, .lessThanOrEqual, .exact, .substring, .greaterThan, .lessThan] where matches(op.rawValue) {
            position += op.rawValue.unicodeScalars.count
            return op
        }
        let shown = Self.shown(field.written)
        if peek == "=" || peek == "!" {
            throw Self.refusal(
                at: position, "'\(Self.shown(word(at: position)))' is not an operator",
                "Write : for equals (\(shown):'value') and a leading - to negate (-\(shown):'value').")
        }
        throw Self.refusal(
            at: position, "an operator (: ~ > < >= <=) must follow \(shown) without a space, but \(found(at: position))",
            "Write the clause without spaces, such as \(shown):'value' or amount>=1000.")
    }

    mutating func parseValue(for op: SearchClause.Operator, field: SearchClause.Field) throws(StripeError) -> SearchClause.Value {
        let start = position
        let written = Self.shown(field.written) + op.rawValue
        guard let first = peek, !Self.isSpace(first) else {
            throw Self.refusal(at: position, "a value must follow \(written) without a space, but \(found(at: position))", "Write the value right after the operator, such as \(written)'value'.")
        }
        let value: SearchClause.Value
        if first == "'" || first == "\"" {
            value = .string(try parseQuoted())
        } else {
            // An unquoted value runs to the next space; it must be digits or null.
            let bare = word(at: position)
            position += bare.unicodeScalars.count
            if bare.lowercased() == "null" {
                value = .null
            } else if bare.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
                value = .number(bare)
            } else {
                throw Self.refusal(
                    at: start, "the value '\(Self.shown(bare))' is not quoted, and only whole numbers and null may go without quotes",
                    "Quote string values: \(written)'\(Self.shown(bare))' (single or double quotes; a backslash escapes a quote inside).")
            }
        }
        if value == .null, op != .exact {
            throw Self.refusal(at: start, "null goes only with :, but here it follows \(op.rawValue)", "Write \(Self.shown(field.written)):null for 'has no value', or -\(Self.shown(field.written)):null for 'has a value'.")
        }
        if op == .substring {
            let length: Int
            switch value {
            case .string(let text), .number(let text): length = text.count
            case .null: length = 0
            }
            if length < 3 {
                throw Self.refusal(at: start, "a substring after ~ needs at least 3 characters, and this one has \(length)", "Search for a longer piece, or match the whole value with :.")
            }
        }
        return value
    }

    /// A quoted string at `position` (which holds the quote); the position moves past the
    /// closing quote. Inside, a backslash escapes a quote or a backslash.
    mutating func parseQuoted() throws(StripeError) -> String {
        let open = position
        let quote = scalars[position]
        position += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else {
                throw Self.refusal(at: open, "the string opened here with \(quote) is not closed", "Close it with \(quote); write \\\(quote) for a \(quote) inside it.")
            }
            if scalar == quote {
                position += 1
                return String(text)
            }
            if scalar == "\\" {
                guard position + 1 < scalars.count else {
                    throw Self.refusal(at: open, "the string opened here with \(quote) is not closed (its last character is a lone backslash)", "Close it with \(quote); write \\\\ for a backslash inside it.")
                }
                let escaped = scalars[position + 1]
                guard escaped == "'" || escaped == "\"" || escaped == "\\" else {
                    throw Self.refusal(at: position, "\\\(escaped) is not an escape", "Inside quotes a backslash escapes only ', \" and \\: write \\\\ for a backslash.")
                }
                text.append(escaped)
                position += 2
                continue
            }
            text.append(scalar)
            position += 1
        }
    }

    // MARK: Reading

    var atEnd: Bool { position >= scalars.count }
    var peek: Unicode.Scalar? { atEnd ? nil : scalars[position] }

    /// Skips spaces; true when there was at least one.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = position
        while let scalar = peek, Self.isSpace(scalar) { position += 1 }
        return position > start
    }

    func matches(_ text: String) -> Bool {
        let wanted = Array(text.unicodeScalars)
        guard position + wanted.count <= scalars.count else { return false }
        return Array(scalars[position..<(position + wanted.count)]) == wanted
    }

    /// The text from `start` to the next space (or the end): what a message quotes.
    func word(at start: Int) -> String {
        var end = start
        while end < scalars.count, !Self.isSpace(scalars[end]) { end += 1 }
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }

    /// `AND` or `OR` in any case at `start`, as a whole word (a space or the end after it).
    func keyword(at start: Int) -> (kind: SearchQuery.Connective, text: String)? {
        let text = word(at: start)
        switch text.uppercased() {
        case "AND": return (.and, text)
        case "OR": return (.or, text)
        default: return nil
        }
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
    }
}
