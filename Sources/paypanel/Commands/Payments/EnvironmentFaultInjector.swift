import Foundation
import PayPanel
import Synchronization

/// The fault points a test armed through the environment:
/// - `$PAYPANEL_FAULT`: the process kills itself there with SIGKILL — no cleanup, no flush,
///   exactly like a power cut or an OOM kill;
/// - `$PAYPANEL_STORE_FAULT`: the step that follows fails, the first time the point is reached,
///   with `InjectedStoreFault`, as a write to a full disk would; the process lives on (a server
///   keeps serving), so the retry that follows shows what a failed run left behind.
final class EnvironmentFaultInjector: FaultInjector {
    private let killAt: FaultSelector?
    private let failOnceAt: FaultSelector?
    private let failed = Atomic<Bool>(false)

    init(environment: [String: String]) throws {
        killAt = try Self.selector(CheckoutOptions.faultEnvironmentVariable, in: environment)
        failOnceAt = try Self.selector(CheckoutOptions.storeFaultEnvironmentVariable, in: environment)
    }

    func reach(_ point: FaultPoint) throws {
        if let killAt, killAt.matches(point) {
            kill(getpid(), SIGKILL)
        }
        if let failOnceAt, failOnceAt.matches(point), !failed.exchange(true, ordering: .relaxed) {
            throw InjectedStoreFault(point: point)
        }
    }

    /// The point `variable` names, nil when it is unset or empty.
    private static func selector(_ variable: String, in environment: [String: String]) throws -> FaultSelector? {
        guard let name = environment[variable], !name.isEmpty else { return nil }
        guard let selector = FaultSelector(name) else {
            throw UsageError("$\(variable): unknown fault point '\(name)'; use one of \(FaultSelector.names.joined(separator: ", "))")
        }
        return selector
    }
}

/// The failure `$PAYPANEL_STORE_FAULT` injects: it says it was injected, so nobody goes looking
/// for a full disk.
struct InjectedStoreFault: PayPanelError {
    let point: FaultPoint

    var code: String { "injected_store_fault" }

    var message: String {
        "the step after fault point \(point) failed as a write to a full disk would: injected by $\(CheckoutOptions.storeFaultEnvironmentVariable) (a test fault); retry with the same idempotency key to finish what was started"
    }
}
