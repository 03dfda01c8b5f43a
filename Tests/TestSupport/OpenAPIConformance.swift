import Foundation
import PayPanel

/// Checks a response against an OpenAPI 3.1 document: the route and status are documented, the
/// content type is one the document lists, and a JSON body satisfies the documented schema.
///
/// The schema check covers the JSON Schema keywords the document uses and fails on any other,
/// so a schema it cannot read is never taken as satisfied: `$ref` (into this document),
/// `type` (one name or a list), `const`, `enum`, `anyOf`, `properties`, `required`,
/// `additionalProperties` (false, or a schema for the other members), `propertyNames`,
/// `maxProperties`, `minLength` and `maxLength` (in Unicode scalars, as JSON Schema counts),
/// `items`; `description` is ignored.
public struct OpenAPIConformance: Sendable {
    public let document: JSONValue

    public init(document: JSONValue) {
        self.document = document
    }

    /// What is wrong with this response, one sentence each; empty when it conforms.
    /// `target` may carry a query string; it is not part of the route.
    public func violations(method: String, target: String, status: Int, contentType: String?, body: [UInt8]) -> [String] {
        let path = String(target.prefix { $0 != "?" })
        let where_ = "\(method) \(path) → \(status)"
        guard let response = documentedResponse(method: method, path: path, status: status) else {
            return ["\(where_): no such route and status in the document"]
        }
        guard let content = response["content"]?.objectValue else {
            return body.isEmpty ? [] : ["\(where_): the document gives no content, the response has \(body.count) bytes"]
        }
        let media = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let described = content[media] else {
            return ["\(where_): content type \(contentType ?? "none") is not among \(content.keys)"]
        }
        guard media == "application/json" else { return [] }
        let value: JSONValue
        do {
            value = try JSONParser().parse(body)
        } catch {
            return ["\(where_): the body is not JSON (\(error))"]
        }
        guard let schema = described["schema"] else { return ["\(where_): JSON content without a schema"] }
        var found: [String] = []
        check(value, against: schema, at: "$", into: &found)
        return found.map { "\(where_): \($0)" }
    }

    /// The response object for this status (or `default`). An undocumented route, or a method
    /// the route lacks, answers as the document's `Error` (404 and 405 from the router).
    private func documentedResponse(method: String, path: String, status: Int) -> JSONValue? {
        let operation = template(for: path).flatMap { document["paths"]?[$0]?[method.lowercased()] }
        guard let responses = operation?["responses"] else {
            guard [404, 405].contains(status) else { return nil }
            return .orderedObject([("content", .orderedObject([("application/json", .orderedObject([
                ("schema", .orderedObject([("$ref", "#/components/schemas/Error")])),
            ]))]))])
        }
        return responses[String(status)] ?? responses["default"]
    }

    /// The path template (`/v1/things/{id}`) a concrete path matches: the same segments, a
    /// `{…}` segment matching any one non-empty segment.
    private func template(for path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return document["paths"]?.objectValue?.keys.first { candidate in
            let pattern = candidate.split(separator: "/", omittingEmptySubsequences: false)
            guard pattern.count == segments.count else { return false }
            return zip(pattern, segments).allSatisfy { expected, actual in
                (expected.hasPrefix("{") && expected.hasSuffix("}") && !actual.isEmpty) || expected == actual
            }
        }
    }

    private static let known: Set<String> = [
        "$ref", "type", "const", "enum", "anyOf", "properties", "required", "additionalProperties", "items", "description",
        "propertyNames", "maxProperties", "minLength", "maxLength", "pattern",
    ]

    private func check(_ value: JSONValue, against schema: JSONValue, at location: String, into found: inout [String]) {
        guard let keywords = schema.objectValue else {
            found.append("\(location): the schema is not an object")
            return
        }
        for keyword in keywords.keys where !Self.known.contains(keyword) {
            found.append("\(location): the check cannot read the schema keyword \(keyword)")
        }
        if let reference = keywords["$ref"]?.stringValue {
            guard let target = resolve(reference) else {
                found.append("\(location): \(reference) points at nothing")
                return
            }
            check(value, against: target, at: location, into: &found)
        }
        if let expected = keywords["const"], value != expected {
            found.append("\(location): \(shown(value)) is not \(shown(expected))")
        }
        if let options = keywords["enum"]?.arrayValue, !options.contains(value) {
            found.append("\(location): \(shown(value)) is not one of \(options.map(shown).joined(separator: ", "))")
        }
        if let alternatives = keywords["anyOf"]?.arrayValue {
            let failures = alternatives.map { alternative -> [String] in
                var inner: [String] = []
                check(value, against: alternative, at: location, into: &inner)
                return inner
            }
            if !failures.contains(where: \.isEmpty) {
                found.append("\(location): matches none of anyOf (\(failures.map { $0.first ?? "" }.joined(separator: "; ")))")
            }
        }
        if let type = keywords["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? type.stringValue.map { [$0] } ?? []
            guard names.contains(where: { Self.has(value, type: $0) }) else {
                found.append("\(location): \(value.typeDescription) where the document says \(names.joined(separator: " or "))")
                return
            }
        }
        if case .object(let object) = value {
            let properties = keywords["properties"]?.objectValue
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                found.append("\(location): required member \(name) is missing")
            }
            for member in object.members {
                if let names = keywords["propertyNames"] {
                    check(.string(member.key), against: names, at: "\(location) (the name \(member.key))", into: &found)
                }
                if let property = properties?[member.key] {
                    check(member.value, against: property, at: "\(location).\(member.key)", into: &found)
                } else if keywords["additionalProperties"] == .bool(false) {
                    found.append("\(location): member \(member.key) is not in the document")
                } else if let others = keywords["additionalProperties"], others.objectValue != nil {
                    check(member.value, against: others, at: "\(location).\(member.key)", into: &found)
                }
            }
            if let most = keywords["maxProperties"]?.int64Value, object.members.count > most {
                found.append("\(location): \(object.members.count) members where the document allows at most \(most)")
            }
        }
        if case .string(let text) = value {
            let length = text.unicodeScalars.count
            if let least = keywords["minLength"]?.int64Value, length < least {
                found.append("\(location): \(length) characters where the document asks for at least \(least)")
            }
            if let most = keywords["maxLength"]?.int64Value, length > most {
                found.append("\(location): \(length) characters where the document allows at most \(most)")
            }
            if let pattern = keywords["pattern"]?.stringValue {
                // Scalar by scalar, as JSON Schema's ECMA-262 patterns match (not by Character).
                if let regex = try? Regex(pattern).matchingSemantics(.unicodeScalar) {
                    if (try? regex.firstMatch(in: text)) == nil {
                        found.append("\(location): \(shown(value)) does not match the document's pattern \(pattern)")
                    }
                } else {
                    found.append("\(location): the check cannot read the pattern \(pattern)")
                }
            }
        }
        if case .array(let elements) = value, let items = keywords["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: items, at: "\(location)[\(index)]", into: &found)
            }
        }
    }

    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }

    private static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number): true
        case ("integer", .number(let number)): number.isInteger
        default: false
        }
    }

    /// A value as a violation names it: short, and never a long string in full.
    private func shown(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text.prefix(40))\""
        case .number(let number): number.literal
        case .bool(let flag): String(flag)
        case .null: "null"
        default: value.typeDescription
        }
    }
}
