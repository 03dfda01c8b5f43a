/// Named points in the checkout flow where a test can make the process die, to prove that a
/// crash at any of them loses nothing: `PAYPANEL_FAULT=after-authorize paypanel payments authorize …`
/// kills the process right after the processor approved, before the answer is recorded. A
/// test can also make the step that follows fail as a failed database write would (a full
/// disk), to prove that a run which fails there, without dying, loses nothing either.
///
/// The library only announces the points; what happens there is the injector's business (the
/// CLI's kills the process with SIGKILL or throws, the default does nothing).
public enum FaultPoint: Sendable, Hashable, CustomStringConvertible {
    /// The call's transition is committed; the processor has not been called.
    case beforeProcessorCall(ProcessorOperation)
    /// The processor answered; the answer is not recorded yet.
    case afterProcessorCall(ProcessorOperation)

    /// `before-authorize`, `after-capture`, …
    public var description: String {
        switch self {
        case .beforeProcessorCall(let operation): "before-\(operation.rawValue)"
        case .afterProcessorCall(let operation): "after-\(operation.rawValue)"
        }
    }

    /// Every point, for help texts and the crash soak.
    public static let all: [FaultPoint] = ProcessorOperation.allCases.flatMap { [.beforeProcessorCall($0), .afterProcessorCall($0)] }

    /// Looks a point up by its name (`before-capture`); the names that match every operation
    /// (`before-processor-call`, `after-processor-call`) are `FaultSelector`'s.
    public init?(name: String) {
        guard let point = FaultPoint.all.first(where: { $0.description == name }) else { return nil }
        self = point
    }
}

/// Decides what happens when the flow reaches a fault point.
public protocol FaultInjector: Sendable {
    /// Called when the flow reaches `point`; may end the process (the CLI's injector does), or
    /// throw: the step that follows then fails with that error, as if its write had failed
    /// (after a processor call: the answer is not recorded).
    func reach(_ point: FaultPoint) throws
}

/// No faults: the production default.
public struct NoFaults: FaultInjector {
    public init() {}
    public func reach(_ point: FaultPoint) {}
}

/// Which fault points a test armed: one point, or every point of one side of the call
/// (`after-processor-call`). Parsing lives here so the CLI and the soak agree on the names.
package struct FaultSelector: Sendable, Equatable, CustomStringConvertible {
    package let name: String
    private let matches: @Sendable (FaultPoint) -> Bool

    /// Parses a fault name; nil when unknown.
    package init?(_ name: String) {
        self.name = name
        switch name {
        case "before-processor-call":
            matches = { if case .beforeProcessorCall = $0 { true } else { false } }
        case "after-processor-call":
            matches = { if case .afterProcessorCall = $0 { true } else { false } }
        default:
            guard let point = FaultPoint(name: name) else { return nil }
            matches = { $0 == point }
        }
    }

    package func matches(_ point: FaultPoint) -> Bool { matches(point) }

    /// Every accepted name.
    package static var names: [String] { ["before-processor-call", "after-processor-call"] + FaultPoint.all.map(\.description) }

    package var description: String { name }

    package static func == (lhs: FaultSelector, rhs: FaultSelector) -> Bool { lhs.name == rhs.name }
}
