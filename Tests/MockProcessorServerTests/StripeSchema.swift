import Foundation
import PayPanel

/// A checker for the part of OpenAPI 3.0 that Stripe's published response schemas use, run over
/// the schemas vendored in `Tests/stripe-objects/stripe-openapi-schemas.json`: `type` (string,
/// integer, number, boolean, object, array), `nullable`, `enum`, `properties`, `required`,
/// `items`, `additionalProperties`, `anyOf`/`oneOf` (an expandable field is an id string or the
/// expanded object), `maxLength`, the `unix-time` and `currency` formats, and `$ref` within the
/// file.
///
/// Stricter than OpenAPI on purpose, in two places:
/// - A member the schema does not list is a problem (OpenAPI allows extra members unless
///   `additionalProperties: false`): the mock must not invent fields a client could come to rely
///   on. A map such as `metadata` says what its members are with `additionalProperties`.
/// - A `$ref` to a schema that is not vendored passes only for null (where the schema allows
///   null); any other value there is reported as unchecked, never silently accepted.
struct StripeSchema {
    struct Report {
        /// "path: what is wrong", one per discrepancy.
        var problems: [String] = []
        /// "path: why it could not be checked" — a value under a schema the file does not hold.
        var unchecked: [String] = []
        /// The allow-listed "schema.member" entries this value used.
        var tolerated: Set<String> = []

        var isClean: Bool { problems.isEmpty && unchecked.isEmpty }
        var lines: [String] { problems + unchecked.map { "unchecked " + $0 } }
    }

    let document: JSONValue
    let schemas: JSONObject
    /// "schema.member" → why the mock sends a member the schema does not list (the test's
    /// explicit allow-list; every entry names its reason).
    var toleratedMembers: [String: String] = [:]

    init(document: JSONValue) throws {
        guard let schemas = document["schemas"]?.objectValue else {
            throw ProcessorServeError(description: "the vendored file has no `schemas` object")
        }
        self.document = document
        self.schemas = schemas
    }

    static var vendoredPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("stripe-objects/stripe-openapi-schemas.json").path
    }

    static func vendored() throws -> StripeSchema {
        try StripeSchema(document: JSONParser().parse(String(contentsOfFile: vendoredPath, encoding: .utf8)))
    }

    /// `value` against the component schema `name`, its path starting at `path`.
    func check(_ value: JSONValue, against name: String, at path: String) -> Report {
        var report = Report()
        check(value, schema: ["$ref": .string(Self.refPrefix + name)], in: name, at: path, into: &report)
        return report
    }

    /// A `list` or `search_result` page: the envelope against the spec's envelope, each item of
    /// `data` against the component schema `item`.
    func checkPage(_ value: JSONValue, of kind: String, items item: String, at path: String) -> Report {
        var report = Report()
        guard let envelope = document["envelopes"]?[kind] else {
            report.unchecked.append("\(path): no `\(kind)` envelope in the vendored file")
            return report
        }
        check(value, schema: envelope, in: kind, at: path, into: &report)
        for (index, element) in (value["data"]?.arrayValue ?? []).enumerated() {
            check(element, schema: ["$ref": .string(Self.refPrefix + item)], in: item, at: "\(path).data[\(index)]", into: &report)
        }
        return report
    }

    static let refPrefix = "#/components/schemas/"

    private func check(_ value: JSONValue, schema: JSONValue, in owner: String, at path: String, into report: inout Report) {
        if let reference = schema["$ref"]?.stringValue {
            let name = reference.hasPrefix(Self.refPrefix) ? String(reference.dropFirst(Self.refPrefix.count)) : reference
            guard let target = schemas[name] else {
                if value == .null {
                    report.problems.append("\(path): null, where Stripe's schema has a \(name) object")
                } else {
                    report.unchecked.append("\(path): \(value.typeDescription) under `\(name)`, a schema not vendored")
                }
                return
            }
            check(value, schema: target, in: name, at: path, into: &report)
            return
        }
        if value == .null {
            if schema["nullable"] != true && !schema.isEmptySchema {
                report.problems.append("\(path): null, which Stripe's schema does not allow here")
            }
            return
        }
        if let branches = schema["anyOf"]?.arrayValue ?? schema["oneOf"]?.arrayValue {
            checkAlternatives(value, branches, exactlyOne: schema["oneOf"] != nil, in: owner, at: path, into: &report)
            return
        }
        if let allowed = schema["enum"]?.arrayValue, !allowed.contains(value) {
            let shown = allowed.map { $0.stringValue ?? "\($0)" }.joined(separator: ", ")
            report.problems.append("\(path): \(value.shown) is not one of Stripe's values (\(shown))")
            return
        }
        guard let type = schema["type"]?.stringValue else { return }
        switch (type, value) {
        case ("string", .string(let text)):
            if let limit = schema["maxLength"]?.int64Value, text.count > limit {
                report.problems.append("\(path): \(text.count) characters, more than the schema's \(limit)")
            }
            if schema["format"]?.stringValue == "currency", !text.isLowercaseCurrencyCode {
                report.problems.append("\(path): \(value.shown) is not a lower-case three-letter currency code")
            }
        case ("integer", .number(let number)):
            if number.integralValue == nil {
                report.problems.append("\(path): \(number.literal) is not an integer")
            } else if schema["format"]?.stringValue == "unix-time", (number.integralValue ?? 0) < 0 {
                report.problems.append("\(path): \(number.literal) is not a Unix time")
            }
        case ("number", .number), ("boolean", .bool):
            break
        case ("array", .array(let elements)):
            let items = schema["items"] ?? .object(JSONObject())
            for (index, element) in elements.enumerated() {
                check(element, schema: items, in: owner, at: "\(path)[\(index)]", into: &report)
            }
        case ("object", .object(let members)):
            checkMembers(members, schema: schema, in: owner, at: path, into: &report)
        default:
            report.problems.append("\(path): \(value.typeDescription), where Stripe's schema has \(type)")
        }
    }

    private func checkMembers(_ members: JSONObject, schema: JSONValue, in owner: String, at path: String, into report: inout Report) {
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        for required in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[required] == nil {
            report.problems.append("\(path).\(required): missing, and Stripe's schema requires it")
        }
        for (key, member) in members.members {
            if let property = properties[key] {
                check(member, schema: property, in: owner, at: "\(path).\(key)", into: &report)
            } else if let additional = schema["additionalProperties"], additional != false {
                if additional != true { check(member, schema: additional, in: owner, at: "\(path).\(key)", into: &report) }
            } else if toleratedMembers["\(owner).\(key)"] != nil {
                report.tolerated.insert("\(owner).\(key)")
            } else {
                report.problems.append("\(path).\(key): not in Stripe's \(owner) schema (an invented field)")
            }
        }
    }

    /// `anyOf`: some branch must take the value whole; `oneOf`: exactly one. When none does, the
    /// problems shown are those of the closest branch (fewest problems); a branch that could not
    /// be checked makes the value unchecked rather than wrong.
    private func checkAlternatives(
        _ value: JSONValue, _ branches: [JSONValue], exactlyOne: Bool, in owner: String, at path: String, into report: inout Report
    ) {
        var outcomes: [Report] = []
        for branch in branches {
            var attempt = Report()
            check(value, schema: branch, in: owner, at: path, into: &attempt)
            outcomes.append(attempt)
        }
        let passing = outcomes.filter(\.isClean).count
        if passing == 1 || (passing > 1 && !exactlyOne) {
            report.tolerated.formUnion(outcomes.first(where: \.isClean)?.tolerated ?? [])
            return
        }
        if passing > 1 {
            report.problems.append("\(path): matches \(passing) of the oneOf alternatives, where Stripe's schema wants exactly one")
            return
        }
        if let uncheckable = outcomes.first(where: { $0.problems.isEmpty }) {
            report.unchecked += uncheckable.unchecked
            return
        }
        if let closest = outcomes.min(by: { $0.problems.count < $1.problems.count }) {
            report.problems += closest.problems
            report.unchecked += closest.unchecked
        }
    }
}

extension JSONValue {
    /// `{}`: OpenAPI's "anything" (the envelopes' `data.items`, checked item by item instead).
    fileprivate var isEmptySchema: Bool { objectValue?.isEmpty ?? false }

    fileprivate var shown: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .number(let number): number.literal
        case .bool(let flag): String(flag)
        default: typeDescription
        }
    }
}

extension String {
    fileprivate var isLowercaseCurrencyCode: Bool {
        utf8.count == 3 && utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
    }
}
