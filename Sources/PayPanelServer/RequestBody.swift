import Foundation
import PayPanel
import PayPanelHTTP

/// A request's JSON object body, read with the project's strict `JSONParser` (no duplicate
/// keys, bounded depth, valid UTF-8 only), with typed field readers whose errors name the
/// parameter. Unknown fields are refused, so a typo never silently does nothing.
struct RequestBody {
    let object: JSONObject
    /// The nesting limit for request bodies: no request of this API needs more than 3.
    static let maximumDepth = 16

    /// An empty body is `{}`; a body needs `Content-Type: application/json` (415 otherwise).
    init(_ context: RequestContext, allowed: Set<String>) throws(APIError) {
        if context.body.isEmpty {
            object = JSONObject()
            return
        }
        let contentType = context.headers["content-type"]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else {
            throw APIError(status: .unsupportedMediaType, kind: .invalidRequest, code: "unsupported_media_type",
                           message: "send the body as JSON with Content-Type: application/json")
        }
        let value: JSONValue
        do {
            value = try JSONParser(maximumDepth: Self.maximumDepth).parse(context.body)
        } catch {
            throw APIError.invalid("invalid_json", "the request body is not acceptable JSON: \(error.message)")
        }
        guard case .object(let object) = value else {
            throw APIError.invalid("invalid_json", "the request body must be a JSON object, not \(value.typeDescription)")
        }
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw APIError.invalid("parameter_unknown", "unknown parameter \(JSONWriter.quoted(SensitiveDigits.redacted(unknown)))", param: unknown)
        }
        self.object = object
    }

    init(object: JSONObject) {
        self.object = object
    }

    func string(_ name: String, required: Bool = false) throws(APIError) -> String? {
        guard let value = value(name) else {
            if required { throw Self.missing(name) }
            return nil
        }
        guard let text = value.stringValue else { throw Self.wrongType(name, "a string", value) }
        return text
    }

    func integer(_ name: String, required: Bool = false) throws(APIError) -> Int64? {
        guard let value = value(name) else {
            if required { throw Self.missing(name) }
            return nil
        }
        // A number equal to an integer (38, 38.0) is one: JSON Schema says so, and float-keeping clients send 38.0.
        guard let number = value.numberValue, let integer = number.integralValue else {
            throw Self.wrongType(name, "an integer", value)
        }
        return integer
    }

    func bool(_ name: String, required: Bool = false) throws(APIError) -> Bool? {
        guard let value = value(name) else {
            if required { throw Self.missing(name) }
            return nil
        }
        guard let flag = value.boolValue else { throw Self.wrongType(name, "true or false", value) }
        return flag
    }

    /// A nested object, read with its own allowed fields; errors name `outer[inner]`.
    func object(_ name: String, allowed: Set<String>, required: Bool = false) throws(APIError) -> RequestBody? {
        guard let value = value(name) else {
            if required { throw Self.missing(name) }
            return nil
        }
        guard case .object(let inner) = value else { throw Self.wrongType(name, "an object", value) }
        if let unknown = inner.keys.first(where: { !allowed.contains($0) }) {
            let param = "\(name)[\(unknown)]"
            throw APIError.invalid("parameter_unknown", "unknown parameter \(JSONWriter.quoted(SensitiveDigits.redacted(param)))", param: param)
        }
        return RequestBody(object: inner)
    }

    /// `metadata` as a request sets it (`Metadata.change`): an object of strings, a value of ""
    /// removing its key, or "" removing every key. A problem is a 400 naming its field (every
    /// problem is in the message).
    func metadataChange(_ name: String = "metadata") throws(APIError) -> Metadata.Change? {
        guard let value = value(name) else { return nil }
        let (change, problems) = Metadata.change(from: value, field: name)
        if let first = problems.first {
            throw APIError.invalid(first.code, problems.map(\.message).joined(separator: "; "), param: first.field)
        }
        return change
    }

    /// `metadata` for a new object: as `metadataChange`, applied to none.
    func newMetadata(_ name: String = "metadata") throws(APIError) -> Metadata {
        guard let change = try metadataChange(name) else { return .empty }
        do {
            return try Metadata.empty.applying(change)
        } catch {
            throw APIError.invalid(error.code, error.message, param: error.field)
        }
    }

    /// The member `name`; nil when it is absent or `null` (this API reads the two alike).
    func value(_ name: String) -> JSONValue? {
        guard let value = object[name], value != .null else { return nil }
        return value
    }

    static func missing(_ name: String) -> APIError {
        .invalid("parameter_missing", "missing required parameter: \(name)", param: name)
    }

    static func wrongType(_ name: String, _ expected: String, _ value: JSONValue) -> APIError {
        .invalid("parameter_invalid", "\(name) must be \(expected), not \(value.typeDescription)", param: name)
    }
}
