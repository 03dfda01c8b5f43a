import PayPanel

/// What the checkout's front ends drive: the backend in this process (`CheckoutBackend`) or a
/// running `paypanel serve` reached over HTTP (`RemoteCheckoutBackend`). Both answer the flow's
/// requests with a `BackendResult` read back from where the payment lives, so the screens are
/// the same either way.
public protocol DeviceBackend: Sendable {
    /// What the front ends must show while the checkout runs in test mode, else nil.
    var testModeNotice: String? { get }
    /// Performs `request`. Never throws: a refusal is the result's `problem`.
    func perform(_ request: BackendRequest) async -> BackendResult
}

extension CheckoutBackend: DeviceBackend {}
