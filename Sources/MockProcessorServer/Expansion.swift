import PayPanel

/// Stripe's `expand[]`: a field holding another object's id is answered with that object
/// instead (`expand[]=latest_charge`), nested with dots (`latest_charge.payment_intent`), on
/// lists through `data` (`data.latest_charge`), at most four levels deep as at Stripe. A path
/// naming a field that cannot be expanded is refused by name (`This property cannot be
/// expanded (…)`), never ignored: a suite that relies on an expansion learns it here.
struct Expansion: Sendable {
    /// Stripe's limit on how deep an expansion reaches.
    static let maximumDepth = 4
    /// At most this many paths per request, as at Stripe's limit on `expand[]` entries.
    static let maximumPaths = 20

    /// Per object type, the fields that hold another object's id and that object's type.
    static let expandable: [String: [String: String]] = [
        "payment_intent": ["latest_charge": "charge", "payment_method": "payment_method", "customer": "customer"],
        "charge": ["payment_intent": "payment_intent", "customer": "customer"],
        "refund": ["charge": "charge", "payment_intent": "payment_intent"],
        "payment_method": ["customer": "customer"],
        "customer": [:],
        "webhook_endpoint": [:],
    ]

    let paths: [[String]]

    /// The paths `expand` names (`expand[]=a.b`, or one `expand=a`); none when absent.
    init(_ parameters: Parameters) throws(StripeError) {
        let values: [String]
        switch parameters.value(["expand"]) {
        case nil: values = []
        case .string(let one)?: values = [one]
        case .list(let items)?:
            values = try Self.paths(items)
        case .object(let members)?:
            // `expand[0]=a&expand[1]=b`, as Stripe's SDKs encode a list: taken in index order.
            let indexed = members.compactMap { member in Int(member.key).map { ($0, member.value) } }
            guard indexed.count == members.count else {
                throw .invalidRequest("expand[] takes field paths such as latest_charge, not a hash.", param: "expand")
            }
            values = try Self.paths(indexed.sorted { $0.0 < $1.0 }.map(\.1))
        }
        guard values.count <= Self.maximumPaths else {
            throw .invalidRequest("You cannot expand more than \(Self.maximumPaths) properties at once.", param: "expand")
        }
        paths = try values.map { (path: String) throws(StripeError) -> [String] in
            let segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.isEmpty, !segments.contains(where: \.isEmpty) else {
                throw .invalidRequest("expand[] takes field paths such as latest_charge or data.latest_charge, not \(JSONWriter.quoted(path, limit: 80)).", param: "expand")
            }
            // `data.` on a list does not count towards the depth, as at Stripe.
            guard segments.filter({ $0 != "data" }).count <= Self.maximumDepth else {
                throw .invalidRequest("You cannot expand more than \(Self.maximumDepth) levels of a property (\(JSONWriter.quoted(path, limit: 80))).", param: "expand")
            }
            return segments
        }
    }

    var isEmpty: Bool { paths.isEmpty }

    private static func paths(_ items: [FormValue]) throws(StripeError) -> [String] {
        try items.map { (item: FormValue) throws(StripeError) -> String in
            guard case .string(let text) = item else { throw .invalidRequest("expand[] takes field paths such as latest_charge.", param: "expand") }
            return text
        }
    }

    /// Refuses, before the route runs, a path its answer cannot take: `root` is the type of
    /// object the route answers with, `list` whether it answers a list of them.
    func validate(root: String, list: Bool) throws(StripeError) {
        for path in paths {
            var segments = path[...]
            if list {
                guard segments.first == "data", segments.count > 1 else { throw Self.cannotExpand(path.joined(separator: ".")) }
                segments = segments.dropFirst()
            }
            var type = root
            for field in segments {
                guard let next = Self.expandable[type]?[field] else { throw Self.cannotExpand(path.joined(separator: ".")) }
                type = next
            }
        }
    }

    /// The type of object a route under `/v1/` answers with, from its path: `/v1/charges/{id}`
    /// a charge, `GET /v1/charges` a list of them. Nil for routes outside Stripe's API.
    static func answerType(method: String, pattern: String) -> (type: String, list: Bool)? {
        let segments = pattern.split(separator: "/").map(String.init)
        guard segments.count >= 2, segments[0] == "v1" else { return nil }
        let types = ["payment_intents": "payment_intent", "refunds": "refund", "charges": "charge", "customers": "customer",
                     "payment_methods": "payment_method", "webhook_endpoints": "webhook_endpoint"]
        guard let type = types[segments[1]] else { return nil }
        let list = method == "GET" && (segments.count == 2 || segments.last == "search")
        return (type, list)
    }

    /// `json` with every path expanded; `lookup(type, id)` gives an object's JSON (nil: leave
    /// the id). Paths apply in order, so `a` then `a.b` expands both.
    func apply(to json: JSONValue, lookup: (String, String) async -> JSONValue?) async throws(StripeError) -> JSONValue {
        var result = json
        for path in paths {
            result = try await Self.expand(result, path[...], whole: path.joined(separator: "."), lookup: lookup)
        }
        return result
    }

    private static func expand(
        _ json: JSONValue, _ path: ArraySlice<String>, whole: String, lookup: (String, String) async -> JSONValue?
    ) async throws(StripeError) -> JSONValue {
        guard let field = path.first, case .object(var object) = json else { return json }
        let rest = path.dropFirst()
        let type = object["object"]?.stringValue ?? ""
        if type == "list" || type == "search_result" {
            guard field == "data", !rest.isEmpty, case .array(let items)? = object["data"] else { throw cannotExpand(whole) }
            var expanded: [JSONValue] = []
            for item in items { expanded.append(try await expand(item, rest, whole: whole, lookup: lookup)) }
            object["data"] = .array(expanded)
            return .object(object)
        }
        guard let target = expandable[type]?[field] else { throw cannotExpand(whole) }
        var value = object[field] ?? .null
        if case .string(let id) = value, let found = await lookup(target, id) { value = found }
        if !rest.isEmpty { value = try await expand(value, rest, whole: whole, lookup: lookup) }
        object[field] = value
        return .object(object)
    }

    static func cannotExpand(_ path: String) -> StripeError {
        .invalidRequest("This property cannot be expanded (\(JSONWriter.quoted(path, limit: 80).dropFirst().dropLast())).", param: "expand")
    }
}

extension ProcessorService {
    /// An object's JSON by type and id, for an expansion; nil when the account has no such one.
    func expansionTarget(_ tag: String, type: String, id: String) -> JSONValue? {
        let account = account(tag)
        switch type {
        case "charge": return account.charges[id].map { chargeJSON(tag, $0) }
        case "payment_intent": return account.intents[id].map { ObjectJSON.intent($0, baseURL: baseURL) }
        case "payment_method": return account.paymentMethods[id].map(ObjectJSON.paymentMethod)
        case "customer": return account.customers[id].map(ObjectJSON.customer)
        default: return nil
        }
    }
}
