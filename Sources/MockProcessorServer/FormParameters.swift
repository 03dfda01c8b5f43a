import PayPanel
import PayPanelHTTP

/// A request's parameters as Stripe reads them: `application/x-www-form-urlencoded` with
/// bracket nesting (`payment_method_data[card][number]=…`, `metadata[k]=v`, `expand[]=…`), or
/// a JSON object, both turned into one tree. Strict and bounded, because every byte is hostile:
/// a key given twice, a key both scalar and nested, too many pairs, too deep a nesting, a key or
/// value too long, bad percent escapes or invalid UTF-8 are each refused with the reason.
public indirect enum FormValue: Sendable, Equatable {
    case string(String)
    case object([(key: String, value: FormValue)])
    case list([FormValue])

    public static func == (lhs: FormValue, rhs: FormValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> FormValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var kindDescription: String {
        switch self {
        case .string: "a value"
        case .object: "a hash (key[...]=...)"
        case .list: "a list (key[]=...)"
        }
    }
}

/// The limits of `FormParameters`; every one has a test.
public struct FormLimits: Sendable, Equatable {
    /// `key=value` pairs (or JSON leaves) at most.
    public var maximumPairs = 256
    /// Brackets in one key (`a[b][c]` is 2), or JSON nesting.
    public var maximumDepth = 5
    /// Bytes of one key, decoded.
    public var maximumKeyBytes = 200
    /// Bytes of one value, decoded.
    public var maximumValueBytes = 5000

    public init() {}
}

/// A parameter that cannot be read: what is wrong, and which parameter (Stripe's `param`).
public struct FormError: Error, Sendable, Equatable {
    public let message: String
    public let param: String?

    public init(_ message: String, param: String? = nil) {
        self.message = message
        self.param = param
    }
}

/// Parses request parameters into a `FormValue.object`.
public enum FormParameters {
    /// Parses a form-urlencoded body or query string.
    public static func parseForm(_ bytes: some Collection<UInt8>, limits: FormLimits = FormLimits()) throws(FormError) -> FormValue {
        var root = Node.object([])
        var pairs = 0
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            pairs += 1
            guard pairs <= limits.maximumPairs else {
                throw FormError("more than \(limits.maximumPairs) parameters: send fewer")
            }
            let parts = piece.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let key = try decode(parts[0], what: "a parameter name")
            let value = parts.count > 1 ? try decode(parts[1], what: "the value of \(JSONWriter.quoted(key, limit: 60))") : ""
            guard !key.isEmpty else { throw FormError("a parameter has an empty name ('=value'): every pair needs a name") }
            guard key.utf8.count <= limits.maximumKeyBytes else {
                throw FormError("a parameter name is longer than \(limits.maximumKeyBytes) bytes", param: String(key.prefix(60)))
            }
            guard value.utf8.count <= limits.maximumValueBytes else {
                throw FormError("the value of \(key) is longer than \(limits.maximumValueBytes) bytes", param: key)
            }
            let path = try keyPath(key, limits: limits)
            try root.insert(path: path[...], value: value, fullKey: key)
        }
        return root.value
    }

    /// Parses a JSON object body: strings stay strings, numbers keep their literal text,
    /// booleans become `true`/`false`, `null` leaves the parameter out.
    public static func parseJSON(_ bytes: [UInt8], limits: FormLimits = FormLimits()) throws(FormError) -> FormValue {
        let json: JSONValue
        do {
            json = try JSONParser(maximumDepth: limits.maximumDepth + 1).parse(bytes)
        } catch {
            throw FormError("the JSON body cannot be read: \(error.message)")
        }
        guard case .object = json else { throw FormError("the JSON body must be an object, not \(json.typeDescription)") }
        var leaves = 0
        return try convert(json, name: "", leaves: &leaves, limits: limits) ?? .object([])
    }

    private static func convert(_ json: JSONValue, name: String, leaves: inout Int, limits: FormLimits) throws(FormError) -> FormValue? {
        switch json {
        case .null: return nil
        case .bool(let value): return try leaf(value ? "true" : "false", name: name, leaves: &leaves, limits: limits)
        case .number(let number): return try leaf(number.literal, name: name, leaves: &leaves, limits: limits)
        case .string(let text): return try leaf(text, name: name, leaves: &leaves, limits: limits)
        case .array(let items):
            var converted: [FormValue] = []
            for item in items {
                if let value = try convert(item, name: name + "[]", leaves: &leaves, limits: limits) { converted.append(value) }
            }
            return .list(converted)
        case .object(let object):
            var members: [(key: String, value: FormValue)] = []
            for member in object.members {
                guard member.key.utf8.count <= limits.maximumKeyBytes else {
                    throw FormError("a parameter name is longer than \(limits.maximumKeyBytes) bytes", param: String(member.key.prefix(60)))
                }
                let child = name.isEmpty ? member.key : "\(name)[\(member.key)]"
                if let value = try convert(member.value, name: child, leaves: &leaves, limits: limits) { members.append((member.key, value)) }
            }
            return .object(members)
        }
    }

    private static func leaf(_ text: String, name: String, leaves: inout Int, limits: FormLimits) throws(FormError) -> FormValue {
        leaves += 1
        guard leaves <= limits.maximumPairs else { throw FormError("more than \(limits.maximumPairs) parameters: send fewer") }
        guard text.utf8.count <= limits.maximumValueBytes else {
            throw FormError("the value of \(name) is longer than \(limits.maximumValueBytes) bytes", param: name)
        }
        return .string(text)
    }

    /// `a[b][]` → ["a", "b", ""]. Brackets must be balanced, non-nested and end the key.
    static func keyPath(_ key: String, limits: FormLimits) throws(FormError) -> [String] {
        guard let open = key.firstIndex(of: "[") else {
            guard !key.contains("]") else { throw FormError("the parameter name \(JSONWriter.quoted(key, limit: 60)) has a ']' without '['", param: key) }
            return [key]
        }
        var path = [String(key[..<open])]
        guard !path[0].isEmpty else { throw FormError("the parameter name \(JSONWriter.quoted(key, limit: 60)) starts with '['", param: key) }
        var rest = key[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else {
                throw FormError("the parameter name \(JSONWriter.quoted(key, limit: 60)) has unbalanced brackets: write name[key][key]", param: key)
            }
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            guard !inner.contains("[") else {
                throw FormError("the parameter name \(JSONWriter.quoted(key, limit: 60)) has unbalanced brackets: write name[key][key]", param: key)
            }
            path.append(String(inner))
            guard path.count - 1 <= limits.maximumDepth else {
                throw FormError("the parameter name \(JSONWriter.quoted(key, limit: 60)) is nested deeper than \(limits.maximumDepth) levels", param: key)
            }
            rest = rest[rest.index(after: close)...]
        }
        return path
    }

    /// Percent-decoding with '+' as a space, as forms encode it (`PercentDecoding`); the result
    /// must be UTF-8 without NUL.
    static func decode(_ bytes: some Collection<UInt8>, what: String) throws(FormError) -> String {
        switch PercentDecoding.decode(bytes, plusIsSpace: true) {
        case .success(let text): text
        case .failure(.badEscape): throw FormError("\(what) has a '%' not followed by two hexadecimal digits; write a literal '%' as %25")
        case .failure(.nul): throw FormError("\(what) contains a NUL byte")
        case .failure(.notUTF8): throw FormError("\(what) is not valid UTF-8")
        }
    }

    /// The tree while it is built.
    private enum Node {
        case leaf(String)
        case object([(key: String, value: Node)])
        case list([Node])

        var value: FormValue {
            switch self {
            case .leaf(let text): .string(text)
            case .object(let members): .object(members.map { ($0.key, $0.value.value) })
            case .list(let items): .list(items.map(\.value))
            }
        }

        mutating func insert(path: ArraySlice<String>, value: String, fullKey: String) throws(FormError) {
            guard let head = path.first else {
                throw FormError("\(fullKey) is given twice, or both as a value and as a hash: give each parameter once", param: fullKey)
            }
            let rest = path.dropFirst()
            switch self {
            case .object(var members):
                guard !head.isEmpty else {
                    throw FormError("\(fullKey) mixes a list ([]) with a hash: give one shape", param: fullKey)
                }
                if let index = members.firstIndex(where: { $0.key == head }) {
                    guard !rest.isEmpty, case .leaf = members[index].value else {
                        if rest.isEmpty { throw FormError("\(fullKey) is given twice: give each parameter once", param: fullKey) }
                        try members[index].value.insert(path: rest, value: value, fullKey: fullKey)
                        self = .object(members)
                        return
                    }
                    throw FormError("\(fullKey) is given both as a value and as a hash: give one shape", param: fullKey)
                }
                members.append((head, try Node.make(path: rest, value: value, fullKey: fullKey)))
                self = .object(members)
            case .list(var items):
                guard head.isEmpty else { throw FormError("\(fullKey) mixes a list ([]) with a hash: give one shape", param: fullKey) }
                items.append(try Node.make(path: rest, value: value, fullKey: fullKey))
                self = .list(items)
            case .leaf:
                throw FormError("\(fullKey) is given both as a value and as a hash: give one shape", param: fullKey)
            }
        }

        static func make(path: ArraySlice<String>, value: String, fullKey: String) throws(FormError) -> Node {
            guard let head = path.first else { return .leaf(value) }
            var node: Node = head.isEmpty ? .list([]) : .object([])
            try node.insert(path: path, value: value, fullKey: fullKey)
            return node
        }
    }
}
