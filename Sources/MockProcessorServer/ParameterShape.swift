/// The parameters a route takes, nested as Stripe nests them. Each route's shape is declared
/// in `ProcessorRoutes.parameterShapes`, beside the routes, and checked at the edge before the
/// route runs: a name the mock does not know — at any depth, in the body or the query — is
/// refused with Stripe's "Received unknown parameter", never accepted and dropped, so a test
/// suite's typo or an option the mock does not model fails loudly instead of passing against
/// the mock and failing against Stripe.
///
/// Only names are checked here; each value's type and range is checked where it is read
/// (`Parameters`), with the parameter named.
indirect enum ParameterShape: Sendable {
    /// One value (`amount=1000`).
    case value
    /// Taken and without effect in this mock (`return_url`, `expand`): a client written for
    /// Stripe sends it on every call. Each one is listed in docs/mock-processor.md (a test
    /// holds the list to `ignoredNames`), so nothing is dropped without saying so.
    case ignored
    /// A list of values (`expand[]=latest_charge`).
    case list
    /// A hash with keys of the caller's choosing, each one value (`metadata[order]=42`).
    case hash
    /// These members only (`payment_method_data[card][number]=…`). A plain value in its place
    /// is left to the reader, which refuses it by name where it must be a hash, or takes it
    /// where Stripe allows either (`created=1700000000` or `created[gt]=…`).
    case members([String: ParameterShape])

    /// No parameters at all (most `_mock` routes).
    static let nothing = ParameterShape.members([:])

    /// The first name in `value` this shape does not take, in Stripe's bracket form, or nil.
    func firstUnknown(in value: FormValue, at path: [String] = []) -> String? {
        guard case .members(let allowed) = self, case .object(let members) = value else { return nil }
        for member in members {
            let name = path + [member.key]
            guard let shape = allowed[member.key] else { return Parameters.name(name) }
            if let unknown = shape.firstUnknown(in: member.value, at: name) { return unknown }
        }
        return nil
    }

    /// Every path to a hash of named members, with its members: what a test probes with a
    /// name that is not there.
    func memberPaths(at path: [String] = []) -> [[String]] {
        guard case .members(let allowed) = self else { return [] }
        return [path] + allowed.sorted { $0.key < $1.key }.flatMap { $0.value.memberPaths(at: path + [$0.key]) }
    }

    /// Every ignored parameter's name, in bracket form.
    func ignoredNames(at path: [String] = []) -> [String] {
        switch self {
        case .ignored: [Parameters.name(path)]
        case .members(let allowed): allowed.sorted { $0.key < $1.key }.flatMap { $0.value.ignoredNames(at: path + [$0.key]) }
        case .value, .list, .hash: []
        }
    }

    /// This shape with `more` members added (a route that takes another's parameters and some).
    func adding(_ more: [String: ParameterShape]) -> ParameterShape {
        guard case .members(let allowed) = self else { return self }
        return .members(allowed.merging(more) { _, new in new })
    }
}

/// The shapes the routes share.
extension ParameterShape {
    /// Lists: Stripe's cursor paging and the creation-time filter.
    static let listing = ParameterShape.members([
        "limit": .value, "starting_after": .value, "ending_before": .value, "expand": .list,
        "created": .members(["gt": .value, "gte": .value, "lt": .value, "lte": .value]),
    ])
    /// A retrieve: `expand[]` (`Expansion`).
    static let retrieve = ParameterShape.members(["expand": .list])
}
