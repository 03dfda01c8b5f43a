import Foundation
import Synchronization

/// The fault points a test armed through the environment:
/// - `$PAYPANEL_FAULT`: the process kills itself there with SIGKILL — no cleanup, no flush,
///   exactly like a power cut or an OOM kill;
/// - `$PAYPANEL_STORE_FAULT`: the step that follows fails, the first time the point is reached,
///   with `InjectedStoreFault`, as a write to a full disk would; the process lives on (a server
///   keeps serving), so the retry that follows shows what a failed run left behind.
///
/// In the library, beside the fault points it arms, so that every front end that assembles a
/// service (the CLI's commands, `serve`) arms the same points the same way.
package final class EnvironmentFaultInjector: FaultInjector {
    /// The variable that arms the fault point where the process kills itself.
    package static let killVariable = "PAYPANEL_FAULT"
    /// The variable that arms the fault point where the step that follows fails once.
    package static let failOnceVariable = "PAYPANEL_STORE_FAULT"

    private let killAt: FaultSelector?
    private let failOnceAt: FaultSelector?
    private let failed = Atomic<Bool>(false)

    /// Reads both variables of `environment`; throws `UnknownFaultPoint` for a name that is not
    /// a fault point.
    package init(environment: [String: String]) throws(UnknownFaultPoint) {
        killAt = try Self.selector(Self.killVariable, in: environment)
        failOnceAt = try Self.selector(Self.failOnceVariable, in: environment)
    }

    package func reach(_ point: FaultPoint) throws {
        if let killAt, killAt.matches(point) {
            kill(getpid(), SIGKILL)
        }
        if let failOnceAt, failOnceAt.matches(point), !failed.exchange(true, ordering: .relaxed) {
            throw InjectedStoreFault(point: point)
        }
    }

    /// The point `variable` names, nil when it is unset or empty.
    private static func selector(_ variable: String, in environment: [String: String]) throws(UnknownFaultPoint) -> FaultSelector? {
        guard let name = environment[variable], !name.isEmpty else { return nil }
        guard let selector = FaultSelector(name) else { throw UnknownFaultPoint(variable: variable, name: name) }
        return selector
    }
}

/// A fault variable names no fault point (a test's typo): the CLI reports it as a usage error.
package struct UnknownFaultPoint: PayPanelError {
    package let variable: String
    package let name: String

    package var code: String { "unknown_fault_point" }

    package var message: String {
        "$\(variable): unknown fault point '\(name)'; use one of \(FaultSelector.names.joined(separator: ", "))"
    }
}

/// The failure `$PAYPANEL_STORE_FAULT` injects: it says it was injected, so nobody goes looking
/// for a full disk.
package struct InjectedStoreFault: PayPanelError {
    package let point: FaultPoint

    package var code: String { "injected_store_fault" }

    package var message: String {
        "the step after fault point \(point) failed as a write to a full disk would: injected by $\(EnvironmentFaultInjector.failOnceVariable) (a test fault); retry with the same idempotency key to finish what was started"
    }
}
