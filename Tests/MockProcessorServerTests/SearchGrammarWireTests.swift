import Foundation
import PayPanel
import Testing
import TestSupport

/// `GET /v1/payment_intents/search` with Stripe's query language against a real
/// `processor serve`: intents of different amounts, currencies, metadata, statuses and creation
/// times, and queries whose answers are known exactly.
@Suite("processor serve: search by Stripe's query language over HTTP")
struct SearchGrammarWireTests {
    /// The ids a search answers (newest first, up to 100), recording a non-200.
    static func found(_ client: StripeTestClient, _ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let reply = try await client.call("GET", "/v1/payment_intents/search", [("query", query), ("limit", "100")])
        #expect(reply.status == 200, "\(query): \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply["has_more"]?.boolValue == false, sourceLocation: sourceLocation)
        return reply["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    /// Creates an intent and brings it to `status` the way a client would.
    static func intent(
        _ client: StripeTestClient, amount: Int, currency: String, metadata: [(String, String)], status: String
    ) async throws -> Reply {
        var pairs = [("amount", String(amount)), ("currency", currency)] + metadata.map { ("metadata[\($0.0)]", $0.1) }
        switch status {
        case "requires_confirmation": pairs.append(("payment_method", "pm_card_visa"))
        case "requires_capture", "canceled": pairs += [("confirm", "true"), ("capture_method", "manual"), ("payment_method", "pm_card_visa")]
        case "succeeded": pairs += [("confirm", "true"), ("capture_method", "automatic"), ("payment_method", "pm_card_visa")]
        default: break
        }
        var reply = try await client.call("POST", "/v1/payment_intents", pairs)
        if status == "canceled" { reply = try await client.call("POST", "/v1/payment_intents/\(reply.id)/cancel") }
        #expect(reply.status_ == status, "\(reply.text)")
        return reply
    }

    static func advance(_ client: StripeTestClient, seconds: Int) async throws {
        #expect(try await client.call("POST", "/_mock/clock/advance", [("seconds", String(seconds))]).status == 200)
    }

    @Test("OR, negation, amount and created ranges, case-insensitive tokens, null and key presence: exactly the right intents, newest first")
    func queriesAnswerExactly() async throws {
        let directory = try TemporaryDirectory("procserve-search-grammar")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_search_grammar")
        let a = try await Self.intent(client, amount: 500, currency: "usd", metadata: [("tier", "gold")], status: "requires_payment_method")
        try await Self.advance(client, seconds: 100)
        let b = try await Self.intent(client, amount: 1500, currency: "eur", metadata: [("tier", "silver")], status: "requires_capture")
        try await Self.advance(client, seconds: 100)
        let c = try await Self.intent(client, amount: 2500, currency: "usd", metadata: [("tier", "Gold"), ("region", "eu")], status: "succeeded")
        try await Self.advance(client, seconds: 100)
        let d = try await Self.intent(client, amount: 3500, currency: "gbp", metadata: [], status: "canceled")
        let (ta, tb, tc) = try (#require(a["created"]?.int64Value), #require(b["created"]?.int64Value), #require(c["created"]?.int64Value))
        #expect(tb == ta + 100 && tc == tb + 100)

        let expected: [(String, [Reply])] = [
            ("status:'succeeded' OR status:'canceled'", [d, c]),
            ("-currency:'usd'", [d, b]),
            ("-status:'canceled' -status:'succeeded'", [b, a]),
            ("amount>=1500 AND amount<3500", [c, b]),
            ("amount>1500 amount<=3500", [d, c]),
            ("-amount>2000", [b, a]),
            ("amount:2500", [c]),
            (#"amount>="2500""#, [d, c]),
            ("amount<1000 OR amount>3000", [d, a]),
            ("created>\(ta) AND created<=\(tc)", [c, b]),
            ("created:\(tb)", [b]),
            ("created<\(tb) OR created>\(tc)", [d, a]),
            ("currency:'EUR' or amount<1000", [b, a]),
            ("status:\"REQUIRES_CAPTURE\"", [b]),
            ("metadata['tier']:'GOLD'", [c, a]),
            ("metadata['tier']:'gold' AND -status:'succeeded'", [a]),
            ("metadata['tier']:'gold' AND metadata['region']:'EU'", [c]),
            ("metadata['tier']:'gold' OR metadata['tier']:'silver'", [c, b, a]),
            ("-metadata['tier']:null", [c, b, a]),
            ("metadata['tier']:null", [d]),
            ("metadata['Tier']:'gold'", []),
            ("customer:null", [d, c, b, a]),
            ("-customer:null", []),
            ("customer:'cus_1'", []),
            ("-customer:'cus_1' AND amount<600", [a]),
        ]
        for (query, intents) in expected {
            #expect(try await Self.found(client, query) == intents.map(\.id), "\(query)")
        }

        let refused = try await client.call("GET", "/v1/payment_intents/search", [("query", "status:'succeeded' AND amount>1 OR currency:'usd'")])
        #expect(refused.status == 400)
        #expect(refused.error?["type"]?.stringValue == "invalid_request_error")
        #expect(refused.error?["param"]?.stringValue == "query")
        #expect(refused.error?["message"]?.stringValue?.hasPrefix("Invalid search query at character 32 (counting from 0)") == true, "\(refused.text)")
        #expect(await server.terminate() == 0)
    }

    // MARK: Generated queries against a reference evaluation

    /// What the test knows of an intent, read from the list endpoint.
    struct Facts {
        let id: String
        let amount: Int64
        let created: Int64
        let currency: String
        let status: String
        let metadata: [String: String]
    }

    /// A generated clause, independent of the server's types.
    struct GeneratedClause {
        enum Field { case amount, created, currency, customer, status, metadata(String) }
        enum Value { case number(Int64), text(String), null }
        let negated: Bool
        let field: Field
        let op: String
        let value: Value

        /// The reference: Stripe's documented meaning, written out plainly.
        func holds(for intent: Facts) -> Bool {
            let result: Bool
            switch (field, value) {
            case (.customer, .null): result = true
            case (.metadata(let key), .null): result = intent.metadata[key] == nil
            case (_, .null): result = false
            case (.amount, .number(let bound)): result = Self.compare(intent.amount, op, bound)
            case (.created, .number(let bound)): result = Self.compare(intent.created, op, bound)
            case (.currency, .text(let text)): result = intent.currency.lowercased() == text.lowercased()
            case (.status, .text(let text)): result = intent.status.lowercased() == text.lowercased()
            case (.metadata(let key), .text(let text)): result = intent.metadata[key]?.lowercased() == text.lowercased()
            default: result = false  // customer:'cus_…' (no intent has a customer)
            }
            return negated != result
        }

        static func compare(_ value: Int64, _ op: String, _ bound: Int64) -> Bool {
            switch op {
            case ":": value == bound
            case ">": value > bound
            case "<": value < bound
            case ">=": value >= bound
            default: value <= bound
            }
        }

        func written(using random: inout SeededRandomNumberGenerator) -> String {
            func quoted(_ text: String) -> String { Bool.random(using: &random) ? "'\(text)'" : "\"\(text)\"" }
            let name = switch field {
            case .amount: "amount"
            case .created: "created"
            case .currency: "currency"
            case .customer: "customer"
            case .status: "status"
            case .metadata(let key): "metadata[\(quoted(key))]"
            }
            let valueText = switch value {
            case .null: ["null", "NULL"].randomElement(using: &random)!
            case .number(let number): Int.random(in: 0..<4, using: &random) == 0 ? quoted(String(number)) : String(number)
            case .text(let text): quoted(text)
            }
            return (negated ? "-" : "") + name + op + valueText
        }
    }

    static func randomClause(intents: [Facts], using random: inout SeededRandomNumberGenerator) -> GeneratedClause {
        let negated = Int.random(in: 0..<4, using: &random) == 0
        func near(_ values: [Int64]) -> Int64 { values.randomElement(using: &random)! + Int64.random(in: -1...1, using: &random) }
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1:
            let op = [":", ">", "<", ">=", "<="].randomElement(using: &random)!
            return Bool.random(using: &random)
                ? GeneratedClause(negated: negated, field: .amount, op: op, value: .number(near(intents.map(\.amount))))
                : GeneratedClause(negated: negated, field: .created, op: op, value: .number(near(intents.map(\.created))))
        case 2:
            return GeneratedClause(negated: negated, field: .currency, op: ":", value: .text(["usd", "USD", "eur", "gbp", "jpy"].randomElement(using: &random)!))
        case 3:
            let statuses = ["requires_payment_method", "requires_confirmation", "requires_capture", "succeeded", "canceled", "SUCCEEDED", "processing"]
            return GeneratedClause(negated: negated, field: .status, op: ":", value: .text(statuses.randomElement(using: &random)!))
        case 4:
            let key = ["tier", "region", "absent"].randomElement(using: &random)!
            let value: GeneratedClause.Value = Int.random(in: 0..<4, using: &random) == 0
                ? .null : .text(["gold", "GOLD", "silver", "eu", "us", "none"].randomElement(using: &random)!)
            return GeneratedClause(negated: negated, field: .metadata(key), op: ":", value: value)
        default:
            return GeneratedClause(negated: negated, field: .customer, op: ":", value: Bool.random(using: &random) ? .null : .text("cus_1"))
        }
    }

    /// Generated queries (seeded) of 1 to 10 clauses over 24 generated intents: the server's
    /// answer must be the reference's, in the list's order (newest first).
    @Test("Seeded: 300 generated queries answer what a plain reference evaluation of Stripe's rules answers")
    func generatedQueriesAgreeWithTheReference() async throws {
        var random = SeededRandomNumberGenerator(seed: 20_261_208)
        let directory = try TemporaryDirectory("procserve-search-generated")
        let server = try await ServedProcess.processor(directory: directory)
        let client = StripeTestClient(port: server.port, key: "sk_test_search_generated")
        let statuses = ["requires_payment_method", "requires_confirmation", "requires_capture", "succeeded", "canceled"]
        for _ in 0..<24 {
            // Some intents share their creation second, so equal `created` values are covered.
            let seconds = [0, 0, 30, 3600].randomElement(using: &random)!
            if seconds > 0 { try await Self.advance(client, seconds: seconds) }
            var metadata: [(String, String)] = []
            if let tier = [nil, "gold", "Gold", "silver"].randomElement(using: &random)! { metadata.append(("tier", tier)) }
            if let region = [nil, "eu", "us"].randomElement(using: &random)! { metadata.append(("region", region)) }
            _ = try await Self.intent(
                client, amount: [100, 500, 999, 1000, 1500, 2500, 10_000].randomElement(using: &random)!,
                currency: ["usd", "eur", "gbp"].randomElement(using: &random)!, metadata: metadata,
                status: statuses.randomElement(using: &random)!)
        }
        let listed = try await client.call("GET", "/v1/payment_intents", [("limit", "100")])["data"]?.arrayValue ?? []
        let intents = try listed.map { item in
            Facts(
                id: try #require(item["id"]?.stringValue), amount: try #require(item["amount"]?.int64Value),
                created: try #require(item["created"]?.int64Value), currency: try #require(item["currency"]?.stringValue),
                status: try #require(item["status"]?.stringValue),
                metadata: Dictionary(uniqueKeysWithValues: (item["metadata"]?.objectValue?.members ?? []).compactMap { member in
                    member.value.stringValue.map { (member.key, $0) }
                }))
        }
        #expect(intents.count == 24)

        var answersOfEveryKind = (none: 0, some: 0, all: 0)
        for _ in 0..<300 {
            let or = Bool.random(using: &random)
            let count = Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 5...10, using: &random) : Int.random(in: 1...3, using: &random)
            let clauses = (0..<count).map { _ in Self.randomClause(intents: intents, using: &random) }
            var query = ""
            for (index, clause) in clauses.enumerated() {
                if index > 0 { query += or ? [" OR ", " or "].randomElement(using: &random)! : [" AND ", " and ", " "].randomElement(using: &random)! }
                query += clause.written(using: &random)
            }
            let expected = intents.filter { intent in
                or ? clauses.contains { $0.holds(for: intent) } : clauses.allSatisfy { $0.holds(for: intent) }
            }.map(\.id)
            let answered = try await Self.found(client, query)
            #expect(answered == expected, "\(query)")
            if expected.isEmpty { answersOfEveryKind.none += 1 } else if expected.count == intents.count { answersOfEveryKind.all += 1 } else { answersOfEveryKind.some += 1 }
        }
        // The generator must reach partial answers, not only all-or-nothing ones.
        #expect(answersOfEveryKind.some >= 100, "\(answersOfEveryKind)")
        #expect(await server.terminate() == 0)
    }
}
