import Foundation
@testable import MockProcessorServer
import PayPanel
import Testing

/// The search query grammar (`SearchQuery.parse`) and the field tables (`SearchFilter`) in
/// process: what each construct parses to, and that every refusal is a 400 on `query` naming
/// the 0-based character where reading stopped.
@Suite("processor serve: the search query grammar")
struct SearchQueryParserTests {
    typealias Clause = SearchClause

    static func clause(_ field: String, key: String? = nil, _ op: Clause.Operator, _ value: Clause.Value, negated: Bool = false) -> Clause {
        Clause(negated: negated, field: Clause.Field(field, key: key), op: op, value: value, fieldPosition: 0, valuePosition: 0)
    }

    /// The query parsed and checked against PaymentIntents' fields, positions dropped.
    static func parsed(_ text: String) throws -> SearchQuery {
        let query = try SearchQuery.parse(text)
        _ = try SearchFilter<StoredIntent>(query)
        return SearchQuery(connective: query.connective, clauses: query.clauses.map { $0.withoutPositions() })
    }

    /// The refusal of `text` (parsed, then checked against `Object`'s fields): the character
    /// its message names, and the message. Fails the test when `text` is accepted or the
    /// refusal is not a 400 invalid_request_error on `query` with a position.
    static func refusal<Object: SearchableObject>(_ text: String, for _: Object.Type = StoredIntent.self, sourceLocation: SourceLocation = #_sourceLocation) -> (position: Int, message: String)? {
        do throws(StripeError) {
            _ = try SearchFilter<Object>(SearchQuery.parse(text))
            Issue.record("accepted: \(text)", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.status == .badRequest && error.type == "invalid_request_error" && error.param == "query", "\(error)", sourceLocation: sourceLocation)
            let prefix = "Invalid search query at character "
            guard error.message.hasPrefix(prefix),
                  let position = Int(error.message.dropFirst(prefix.count).prefix { $0.isNumber }) else {
                Issue.record("no position in: \(error.message)", sourceLocation: sourceLocation)
                return nil
            }
            return (position, error.message)
        }
    }

    @Test("Each operator, on the field types that take it", arguments: [
        ("amount:1000", Clause.Operator.exact), ("amount>1000", .greaterThan), ("amount<1000", .lessThan),
        ("amount>=1000", .greaterThanOrEqual), ("amount<=1000", .lessThanOrEqual),
    ])
    func numericOperators(text: String, op: Clause.Operator) throws {
        #expect(try Self.parsed(text) == SearchQuery(connective: .and, clauses: [Self.clause("amount", op, .number("1000"))]))
    }

    @Test("~ parses, with at least 3 characters, and applies to string fields only")
    func substring() throws {
        let query = try SearchQuery.parse("name~'amy'")
        #expect(query.clauses.map { $0.withoutPositions() } == [Self.clause("name", .substring, .string("amy"))])
        _ = try SearchFilter<Product>(query)
        #expect(Self.refusal("name~'am'", for: Product.self)?.position == 5)
        #expect(Self.refusal("currency~'usd'")?.position == 8, "no PaymentIntent field takes ~ (all are token or numeric)")
        #expect(Self.refusal("amount~'100'")?.position == 6)
    }

    @Test("Single and double quotes; a backslash escapes either quote and itself; the other quote needs no escape")
    func quoting() throws {
        let cases: [(String, String)] = [
            (#"status:'succeeded'"#, "succeeded"),
            (#"status:"succeeded""#, "succeeded"),
            (#"metadata['k']:"say \"hi\"""#, #"say "hi""#),
            (#"metadata['k']:'it\'s'"#, "it's"),
            (#"metadata['k']:'a\\b'"#, #"a\b"#),
            (#"metadata['k']:'say "hi"'"#, #"say "hi""#),
            (#"metadata['k']:'a AND b OR c'"#, "a AND b OR c"),
            (#"metadata['k']:''"#, ""),
        ]
        for (text, value) in cases {
            #expect(try Self.parsed(text).clauses.first?.value == .string(value), "\(text)")
        }
        #expect(try Self.parsed(#"metadata["order id"]:'1'"#).clauses.first?.field == Clause.Field("metadata", key: "order id"))
        #expect(try Self.parsed(#"metadata['it\'s']:'1'"#).clauses.first?.field == Clause.Field("metadata", key: "it's"))
    }

    @Test("null in any case means no value; quoted 'null' is the text; a number may be quoted on a numeric field")
    func nullAndNumbers() throws {
        for text in ["customer:null", "customer:NULL", "customer:Null"] {
            #expect(try Self.parsed(text).clauses == [Self.clause("customer", .exact, .null)], "\(text)")
        }
        #expect(try Self.parsed("-metadata['k']:null").clauses == [Self.clause("metadata", key: "k", .exact, .null, negated: true)])
        #expect(try Self.parsed("customer:'null'").clauses == [Self.clause("customer", .exact, .string("null"))])
        #expect(try Self.parsed(#"amount>="10""#).clauses == [Self.clause("amount", .greaterThanOrEqual, .string("10"))])
        #expect(try Self.parsed("metadata['n']:0042").clauses == [Self.clause("metadata", key: "n", .exact, .number("0042"))])
    }

    @Test("AND, OR and a bare space join clauses; keywords in any case; spaces around the query are ignored")
    func joiners() throws {
        let a = Self.clause("status", .exact, .string("a"))
        let b = Self.clause("amount", .greaterThan, .number("5"), negated: true)
        #expect(try Self.parsed("status:'a' AND -amount>5") == SearchQuery(connective: .and, clauses: [a, b]))
        #expect(try Self.parsed("  status:'a'   -amount>5 ") == SearchQuery(connective: .and, clauses: [a, b]))
        #expect(try Self.parsed("status:'a' and -amount>5") == SearchQuery(connective: .and, clauses: [a, b]))
        #expect(try Self.parsed("status:'a' OR -amount>5") == SearchQuery(connective: .or, clauses: [a, b]))
        #expect(try Self.parsed("status:'a'\tOr\t-amount>5") == SearchQuery(connective: .or, clauses: [a, b]))
        #expect(try Self.parsed("status:'a'") == SearchQuery(connective: .and, clauses: [a]))
    }

    @Test("Mixing AND and OR is refused at the second kind of joiner, naming where the first was")
    func mixing() throws {
        let explicit = try #require(Self.refusal("status:'a' AND amount>1 OR amount<9"))
        #expect(explicit.position == 24)
        #expect(explicit.message.contains("OR cannot follow AND at character 11"), "\(explicit.message)")
        let implicit = try #require(Self.refusal("status:'a' amount>1 OR amount<9"))
        #expect(implicit.position == 20)
        #expect(implicit.message.contains("an implicit AND) at character 11"), "\(implicit.message)")
        #expect(Self.refusal("status:'a' OR amount>1 amount<9")?.position == 23)
        #expect(Self.refusal("status:'a' OR amount>1 AND amount<9")?.position == 23)
    }

    @Test("Ten clauses are taken; an eleventh is refused where it starts")
    func clauseLimit() throws {
        let ten = (1...10).map { "amount>\($0)" }
        #expect(try Self.parsed(ten.joined(separator: " AND ")).clauses.count == 10)
        #expect(try Self.parsed(ten.joined(separator: " OR ")).clauses.count == 10)
        let eleven = (ten + ["amount>11"]).joined(separator: " ")
        let refused = try #require(Self.refusal(eleven))
        #expect(refused.position == eleven.count - "amount>11".count)
        #expect(refused.message.contains("at most 10 clauses"))
        let long = "metadata['k']:'" + String(repeating: "x", count: 990) + "'"
        #expect(Self.refusal(long)?.position == 1000)
    }

    @Test("Unknown fields are refused at the field, listing PaymentIntents' fields; names are lower case")
    func unknownFields() throws {
        let unknown = try #require(Self.refusal("status:'a' description:'x'"))
        #expect(unknown.position == 11)
        #expect(unknown.message.contains("amount, created, currency, customer, metadata['key'], status"), "\(unknown.message)")
        let upper = try #require(Self.refusal("-Status:'a'"))
        #expect(upper.position == 1 && upper.message.contains("write status"), "\(upper.message)")
        #expect(Self.refusal("metadata:'x'")?.position == 0, "metadata needs a key")
        #expect(Self.refusal("status['k']:'x'")?.position == 0, "only metadata takes a key")
    }

    @Test("Numeric operators only on numeric fields; numeric fields only with whole numbers")
    func typing() throws {
        #expect(Self.refusal("status>'a'")?.position == 6)
        #expect(Self.refusal("amount>1 currency<='usd'")?.position == 17)
        #expect(Self.refusal("metadata['k']>5")?.position == 13)
        #expect(Self.refusal("amount:'ten'")?.position == 7)
        #expect(Self.refusal("created>99999999999999999999")?.position == 8)
        #expect(Self.refusal("amount>null")?.position == 7, "null goes only with :")
    }

    @Test("Malformed text is refused where reading stopped", arguments: [
        ("", 0), ("   ", 3),
        ("status:'abc", 7), (#"status:"abc\""#, 7), (#"status:'abc\"#, 7),
        ("status:'a'b", 10), ("status:'a' )", 11), ("status:'a' AND", 11), ("AND status:'a'", 0),
        ("status:'a' OR OR amount>1", 14), ("status:succeeded", 7), ("status: 'a'", 7), ("status :'a'", 6),
        ("status", 6), ("status:", 7), ("status='a'", 6), ("- status:'a'", 1), ("-", 1), ("1amount>5", 0),
        ("metadata[k]:'v'", 9), ("metadata['k':'v'", 12), (#"status:'a\qb'"#, 9), ("amount>-5", 7), ("amount>1.5", 7),
    ])
    func malformed(text: String, position: Int) throws {
        let refused = try #require(Self.refusal(text))
        #expect(refused.position == position, "\(text): \(refused.message)")
    }

    @Test("A card number typed into a query does not come back in the refusal")
    func noCardNumbersInErrors() throws {
        for text in ["status:4242424242424242x", "x4242424242424242:'a'", "amount:'4242424242424242x'", "metadata['4242424242424242':'a'"] {
            let refused = try #require(Self.refusal(text))
            #expect(!refused.message.contains("4242424242424242"), "\(refused.message)")
        }
    }

    @Test("Evaluation: tokens case-insensitive, numbers compared, null is absence, negation inverts, AND all and OR any")
    func evaluation() throws {
        let created = Date(timeIntervalSince1970: 1_800_000_000.7)
        let intent = StoredIntent(
            id: "pi_1", clientSecret: "pi_1_secret", amount: 1500, currency: try Currency(code: "EUR"), captureMethod: "manual",
            description: nil, metadata: [("tier", "Gold")], created: created, status: "requires_capture")
        func matches(_ text: String) throws -> Bool { try SearchFilter<StoredIntent>(SearchQuery.parse(text)).matches(intent) }
        let holding = [
            "currency:'eur'", "currency:'EUR'", "status:'REQUIRES_CAPTURE'", "metadata['tier']:'gold'", "metadata['tier']:\"GOLD\"",
            "amount:1500", "amount>=1500", "amount<=1500", "amount>1499", "amount<1501", #"amount:"1500""#,
            "created:1800000000", "created>1799999999", "created<1800000001",
            "customer:null", "-metadata['tier']:null", "metadata['other']:null", "-currency:'usd'", "-amount>1500",
            "status:'x' OR amount>1000", "amount>1000 amount<2000",
        ]
        for text in holding { #expect(try matches(text), "\(text)") }
        let failing = [
            "currency:'usd'", "metadata['Tier']:'gold'", "metadata['tier']:'gol'", "amount>1500", "amount<1500", "amount:150",
            "created:1800000001", "-customer:null", "metadata['tier']:null", "customer:'cus_1'", "-currency:'eur'",
            "status:'x' AND amount>1000", "status:'x' OR amount>2000",
        ]
        for text in failing { #expect(try !matches(text), "\(text)") }
    }

    @Test("The metadata index is used only where every match must carry the pair")
    func requiredMetadataPairs() throws {
        func pairs(_ text: String) throws -> [String] {
            try SearchFilter<StoredIntent>(SearchQuery.parse(text)).requiredMetadataPairs.map { "\($0.key)=\($0.value)" }
        }
        #expect(try pairs("metadata['a']:'X' AND status:'s' metadata['b']:'y'") == ["a=x", "b=y"])
        #expect(try pairs("metadata['a']:'x' OR status:'s'").isEmpty)
        #expect(try pairs("-metadata['a']:'x' metadata['b']:null status:'s'").isEmpty)
    }

    @Test("String fields (none on PaymentIntents yet): : matches the words in order, ~ a substring, both case-insensitive")
    func stringFields() throws {
        let product = Product(name: "One Two Three Four")
        func matches(_ text: String) throws -> Bool { try SearchFilter<Product>(SearchQuery.parse(text)).matches(product) }
        for text in ["name:'one two three'", "name:'TWO three four'", "name~'two thr'", "name~'FOUR'"] { #expect(try matches(text), "\(text)") }
        for text in ["name:'one three'", "name:'two one'", "name~'onetwo'", "name:'one two three four five'"] { #expect(try !matches(text), "\(text)") }
        #expect(Self.refusal("name>'a'", for: Product.self)?.position == 4)
    }

    /// Random queries from the grammar, written out with random quotes, escapes, keyword case
    /// and spacing, parse back to the clauses they were written from, with each clause's field
    /// position pointing at its field in the text.
    @Test("Seeded round trip: 2,000 generated queries parse to the clauses they were written from")
    func generatedQueriesRoundTrip() throws {
        var random = SeededRandomNumberGenerator(seed: 20_261_207)
        for _ in 0..<2000 {
            let connective: SearchQuery.Connective = Bool.random(using: &random) ? .and : .or
            let clauses = (0..<Int.random(in: 1...10, using: &random)).map { _ in Self.randomClause(using: &random) }
            let (text, fieldPositions) = Self.write(clauses, connective: connective, using: &random)
            let parsed = try SearchQuery.parse(text)
            #expect(parsed.clauses.map { $0.withoutPositions() } == clauses, "\(text)")
            #expect(clauses.count == 1 || parsed.connective == connective, "\(text)")
            #expect(parsed.clauses.map(\.fieldPosition) == fieldPositions, "\(text)")
        }
    }

    static func randomClause(using random: inout SeededRandomNumberGenerator) -> Clause {
        let texts = ["a", "Gold", "it's", #"say "hi""#, #"back\slash"#, "AND", "or", "null", "  spaced  ", "ünï", "x:y>z"]
        let op = Clause.Operator.allCases.randomElement(using: &random)!
        let value: Clause.Value
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where op == .exact: value = .null
        case 1: value = .number(String(Int.random(in: 0...99_999, using: &random)) + (op == .substring ? "000" : ""))
        default: value = .string(texts.randomElement(using: &random)! + (op == .substring ? "xyz" : ""))
        }
        let key = Bool.random(using: &random) ? texts.randomElement(using: &random) : nil
        let name = key == nil ? ["amount", "created", "status", "payment_method_details.card.last4", "_x1"].randomElement(using: &random)! : "metadata"
        return clause(name, key: key, op, value, negated: Int.random(in: 0..<3, using: &random) == 0)
    }

    /// `clauses` as a query text, and where each field name starts in it.
    static func write(_ clauses: [Clause], connective: SearchQuery.Connective, using random: inout SeededRandomNumberGenerator) -> (String, [Int]) {
        func quoted(_ text: String) -> String {
            let quote = Bool.random(using: &random) ? "'" : "\""
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: quote, with: "\\" + quote)
            return quote + escaped + quote
        }
        func spaces() -> String { String(repeating: " ", count: Int.random(in: 1...3, using: &random)) }
        var text = Bool.random(using: &random) ? spaces() : ""
        var positions: [Int] = []
        for (index, clause) in clauses.enumerated() {
            if index > 0 {
                let keyword = connective == .and ? ["AND", "and", "And"] : ["OR", "or", "oR"]
                let bareSpace = connective == .and && Bool.random(using: &random)
                text += bareSpace ? spaces() : spaces() + keyword.randomElement(using: &random)! + spaces()
            }
            if clause.negated { text += "-" }
            positions.append(text.unicodeScalars.count)
            text += clause.field.name
            if let key = clause.field.key { text += "[" + quoted(key) + "]" }
            text += clause.op.rawValue
            switch clause.value {
            case .null: text += ["null", "NULL", "Null"].randomElement(using: &random)!
            case .number(let digits): text += digits
            case .string(let string): text += quoted(string)
            }
        }
        return (text + (Bool.random(using: &random) ? spaces() : ""), positions)
    }
}

/// A kind with a string field, as Customers and Products have at Stripe: the field table is
/// generic, and `~` is tested here since no PaymentIntent field takes it.
struct Product: SearchableObject {
    static let searchName = "Products"
    static let searchFields = [SearchField(name: "name", type: .string)]
    let name: String

    func searchValue(for field: SearchClause.Field) -> SearchValue? {
        field == SearchClause.Field("name") ? .text(name) : nil
    }
}
